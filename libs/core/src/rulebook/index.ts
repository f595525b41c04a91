export * from './claims';
export * from './rules';
export * from './wip-cap';
export * from './status-moves';
export * from './deployments';
export * from './dependencies';
export * from './dispatch';
export * from './machine-authorization';
