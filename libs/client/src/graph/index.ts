export * from './dependency-graph';
export * from './render-graph';
