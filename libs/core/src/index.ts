export * from './db-claims';
export * from './dependencies/satisfaction';
export * from './dependencies/cycles';
export * from './dependencies/gates';
export * from './frontier/compute-frontier';
export * from './frontier/explain';
export * from './frontier/deployment-halts';
export * from './sessions/lane';
