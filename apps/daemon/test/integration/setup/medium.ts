import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';

import { createTestDatabase, ENV_SERVER_URL, withDatabase } from '@app/testing';

import { dataSourceOptions } from '../../../src/database/data-source';
import { runMigrations } from '../../../src/database/migrate';
import { ENV_TEMPLATE_URL } from './global-setup';

// One migrated database per test file (immich's medium tests): a real DataSource for the repositories under test
// and a pg client for arranging rows with the libs/testing factories.
export interface MediumDatabase {
  // its connection string, for a DataSource of the test's own (the daemon's pipelining client, one connection)
  url: string;
  dataSource: DataSource;
  client: Client;
  close: () => Promise<void>;
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const parsed = new URL(url);
  parsed.pathname = '/postgres';
  const admin = new Client({ connectionString: parsed.toString() });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

export async function createMediumDatabase(label: string): Promise<MediumDatabase> {
  const template = process.env[ENV_TEMPLATE_URL];
  let url: string;
  let drop: () => Promise<void>;
  if (template) {
    const name = `svc_it_${label
      .replace(/[^a-z0-9]+/gi, '_')
      .toLowerCase()
      .slice(0, 20)}_${randomBytes(4).toString('hex')}`;
    const templateName = new URL(template).pathname.slice(1);
    await adminQuery(template, `CREATE DATABASE "${name}" TEMPLATE "${templateName}"`);
    url = withDatabase(template, name);
    drop = () => adminQuery(template, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } else {
    if (!process.env[ENV_SERVER_URL]) throw new Error('the jest global setup did not run');
    const db = await createTestDatabase('server', label);
    await runMigrations(db.url);
    url = db.url;
    drop = db.drop;
  }
  const dataSource = new DataSource(dataSourceOptions(url, 4));
  await dataSource.initialize();
  const client = new Client({ connectionString: url });
  await client.connect();
  return {
    url,
    dataSource,
    client,
    close: async () => {
      await client.end();
      await dataSource.destroy();
      await drop();
    },
  };
}
