export * from './credentials';
export * from './http-client';
export * from './team-api';
