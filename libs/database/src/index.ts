export * from './embedded-server';
export * from './snapshot';
