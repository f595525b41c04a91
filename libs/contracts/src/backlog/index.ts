export * from './dependencies';
export * from './items';
export * from './workflow';
