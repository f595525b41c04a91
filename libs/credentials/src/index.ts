export * from './credential-file';
