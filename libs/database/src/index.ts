export * from './embedded-server';
