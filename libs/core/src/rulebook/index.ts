export * from './claims';
export * from './rules';
