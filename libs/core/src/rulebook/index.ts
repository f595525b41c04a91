export * from './claims';
export * from './rules';
export * from './wip-cap';
export * from './machine-authorization';
