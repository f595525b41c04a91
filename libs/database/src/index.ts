export * from './embedded-server';
export * from './pg-symlinks';
export * from './snapshot';
