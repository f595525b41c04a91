export * from './conversion';
export * from './beads';
export * from './taskwarrior';
export * from './backlog-document';
