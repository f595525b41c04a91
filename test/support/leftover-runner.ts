// A stand-in for an interrupted test runner (test/leftovers.e2e-spec.ts): it starts what test runs start outside
// their own process, through the same helpers, prints what it started, and waits to be killed.
//   node -r ts-node/register/transpile-only test/support/leftover-runner.ts [--postgres <home>]
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

import { EmbeddedServer } from '../../libs/database/src/embedded-server';
import { recordLeftover, spawnRecorded } from '../../libs/testing/src/leftovers';

async function main(): Promise<void> {
  // a server in its own group that starts a child of its own in that group (as a daemon's workers would be)
  const server = spawnRecorded(
    process.execPath,
    [
      '-e',
      "require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); setInterval(() => {}, 1000)",
    ],
    { stdio: 'ignore' },
  );
  // a tmux server on a test socket, named as apps/tui/src/testing/tmux.ts names them
  const tmux = `svc-tui-${process.pid}-${Math.floor(Math.random() * 0xffffff).toString(16)}`;
  spawnSync('tmux', ['-L', tmux, '-f', '/dev/null', 'new-session', '-d', 'sleep 600'], { stdio: 'ignore' });
  let postgres: string | null = null;
  const at = process.argv.indexOf('--postgres');
  if (at > 0) {
    const home = process.argv[at + 1];
    recordLeftover({ kind: 'postgres', dataDir: join(home, 'pg') });
    await new EmbeddedServer({ home }).start();
    postgres = join(home, 'pg');
  }
  process.stdout.write(`${JSON.stringify({ server: server.pid, tmux, postgres })}\n`);
  setInterval(() => undefined, 1000);
}

void main();
