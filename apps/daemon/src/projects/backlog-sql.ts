// items/ still imports from here; once it imports '../database/backlog-sql', this file goes.
export * from '../database/backlog-sql';
