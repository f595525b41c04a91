// Imported as '@app/client/mcp' (not from the client index): only `svc mcp` and the daemon's /mcp load the SDK.
export * from './server';
export * from './frontier-resource';
export * from './tools';
export * from './text';
export * from './prompts';
