export * from './schemas';
export * from './json-schema';
