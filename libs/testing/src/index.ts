export * from './backlog-factory';
export * from './cli';
export * from './daemon-process';
export * from './environment';
export * from './test-database';
export * from './db-snapshot';
export * from './faults';
export * from './fuzz';
