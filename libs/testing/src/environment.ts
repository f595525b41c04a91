import { Client } from 'pg';

export const ENV_SERVER_URL = 'SVC_TEST_SERVER_ADMIN_URL';
export const ENV_EMBEDDED_URL = 'SVC_TEST_EMBEDDED_ADMIN_URL';
export const ENV_EMBEDDED_HOME = 'SVC_TEST_EMBEDDED_HOME';

export const DEFAULT_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export async function canConnect(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

// Keeps credentials and query parameters (e.g. ?host=/socket/dir).
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
