export * from './credentials';
export * from './http-client';
export * from './api';
export * from './connection';
export * from './event-stream';
export * from './charge-flow';
export * from './terminal-text';
export * from './display-width';
