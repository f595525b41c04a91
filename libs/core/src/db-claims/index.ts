export * from './db-claim';
export * from './prose-detector';
