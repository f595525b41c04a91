export * from './errors';
export * from './machine-authorization/models';
export * from './machine-authorization/validate';
export * from './machine-authorization/secrets';
export * from './machine-authorization/client-helpers';
