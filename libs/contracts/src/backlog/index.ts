export * from './dependencies';
export * from './items';
export * from './workflow';
export * from './render-body';
export * from './comments';
