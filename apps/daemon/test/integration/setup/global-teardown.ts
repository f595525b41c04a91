import { Client } from 'pg';

import serversTeardown from '../../../../../libs/testing/src/global-teardown';

import { ENV_TEMPLATE_URL } from './global-setup';

export default async function integrationTeardown(): Promise<void> {
  try {
    await dropTemplate();
  } finally {
    await serversTeardown();
  }
}

async function dropTemplate(): Promise<void> {
  const url = process.env[ENV_TEMPLATE_URL];
  if (!url) return;
  const parsed = new URL(url);
  const name = parsed.pathname.slice(1);
  parsed.pathname = '/postgres';
  const admin = new Client({ connectionString: parsed.toString() });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
