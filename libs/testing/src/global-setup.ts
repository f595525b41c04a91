import { mkdtempSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Global setup runs outside jest's module mapper, so the lib is imported by path.
import { EmbeddedServer } from '../../database/src';

import { canConnect, DEFAULT_SERVER_URL, ENV_EMBEDDED_HOME, ENV_EMBEDDED_URL, ENV_SERVER_URL } from './environment';
import { cleanLeftovers, recordLeftover } from './leftovers';

declare global {
  var __SVC_EMBEDDED__: EmbeddedServer | undefined;
}

// Without a PostgreSQL server the embedded one serves all tests, except under CI=true. The e2e and integration tiers
// both call this (a project's globalSetup runs when it has tests in the run); the second call finds the servers there.
export default async function globalSetup(): Promise<void> {
  if (globalThis.__SVC_EMBEDDED__) return;
  // What an interrupted run left (its PostgreSQL servers, daemons, tmux servers) ends before this run starts.
  const left = cleanLeftovers();
  if (left.groups + left.postgres + left.tmux > 0) {
    process.stderr.write(
      `\nended what interrupted test runs left: ${left.groups} process groups, ${left.postgres} PostgreSQL servers, ${left.tmux} tmux servers\n`,
    );
  }
  const home = mkdtempSync(join(tmpdir(), 'svc-test-embedded-'));
  chmodSync(home, 0o755);
  recordLeftover({ kind: 'postgres', dataDir: join(home, 'pg') });
  recordLeftover({ kind: 'home', path: home });
  const embedded = new EmbeddedServer({ home });
  const connection = await embedded.start();
  globalThis.__SVC_EMBEDDED__ = embedded;
  process.env[ENV_EMBEDDED_URL] = connection.url('postgres');
  process.env[ENV_EMBEDDED_HOME] = home;

  const serverUrl = process.env.SVC_TEST_DATABASE_URL ?? DEFAULT_SERVER_URL;
  if (await canConnect(serverUrl)) {
    process.env[ENV_SERVER_URL] = serverUrl;
  } else if (process.env.CI === 'true') {
    await embedded.stop();
    throw new Error(`CI=true and no PostgreSQL server answers at ${serverUrl.replace(/:[^:@/]*@/, ':***@')}`);
  } else {
    process.stderr.write(`\nno PostgreSQL at ${serverUrl}; every test runs on the embedded server\n`);
    process.env[ENV_SERVER_URL] = connection.url('postgres');
  }
}
