import { Client } from 'pg';

// Global setup runs outside jest's module mapper, so the libs and the daemon are imported by path.
import { runMigrations } from '../../../src/database/migrate';
import { canConnect, DEFAULT_SERVER_URL, withDatabase } from '../../../../../libs/testing/src/environment';
import serversSetup from '../../../../../libs/testing/src/global-setup';

export const ENV_TEMPLATE_URL = 'SVC_INTEGRATION_TEMPLATE_URL';

// The integration tier applies the migrations once, to a template database; each test file then creates its own
// database as a copy of the template (CREATE DATABASE … TEMPLATE), which is a file copy, not a migration run.
// The tier first starts the servers every database tier shares (a no-op when the e2e tier already did).
export default async function integrationSetup(): Promise<void> {
  await serversSetup();
  const serverUrl = process.env.SVC_TEST_DATABASE_URL ?? DEFAULT_SERVER_URL;
  if (!(await canConnect(serverUrl))) {
    // No server: each file migrates its own database on the embedded server the root setup starts.
    if (process.env.CI === 'true') throw new Error('CI=true and no PostgreSQL server for the integration tier');
    return;
  }
  const name = `svc_integration_template_${Date.now().toString(36)}_${process.pid}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(serverUrl, name);
  await runMigrations(url);
  process.env[ENV_TEMPLATE_URL] = url;
}
