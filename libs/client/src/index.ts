export * from './credentials';
export * from './http-client';
