import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

import { ENV_EMBEDDED_URL, ENV_SERVER_URL, withDatabase } from './environment';

export type TestServerKind = 'server' | 'embedded';

export interface TestDatabase {
  name: string;
  url: string;
  kind: TestServerKind;
  drop: () => Promise<void>;
}

function adminUrl(kind: TestServerKind): string {
  const url = process.env[kind === 'server' ? ENV_SERVER_URL : ENV_EMBEDDED_URL];
  if (!url) throw new Error('the jest global setup did not run (no test database server configured)');
  return url;
}

async function admin(kind: TestServerKind, sql: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl(kind) });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function createTestDatabase(kind: TestServerKind = 'server', label = 'test'): Promise<TestDatabase> {
  const safeLabel = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 30);
  const name = `svc_${safeLabel}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await admin(kind, `CREATE DATABASE "${name}"`);
  return {
    name,
    kind,
    url: withDatabase(adminUrl(kind), name),
    drop: () => admin(kind, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}
