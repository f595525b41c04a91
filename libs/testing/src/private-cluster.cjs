// Runs one operation on a private PostgreSQL cluster with the built EmbeddedServer, outside jest (whose module
// loader cannot import the embedded package's ES modules): node private-cluster.cjs <home> start|stop.
// `start` prints the connection as one JSON line. The server outlives this process (it is started detached).
'use strict';
const { join } = require('node:path');

const { EmbeddedServer } = require(join(__dirname, '..', '..', '..', 'dist', 'libs', 'database', 'src'));

async function main() {
  const [home, operation] = process.argv.slice(2);
  const server = new EmbeddedServer({ home, log: (m) => process.stderr.write(`${m}\n`) });
  const connection = await server.start();
  if (operation === 'start') {
    await server.ensureDatabase('svc');
    process.stdout.write(`${JSON.stringify({ url: connection.url('svc'), admin: connection.url('postgres') })}\n`);
    return;
  }
  if (operation === 'stop') {
    await server.stop();
    return;
  }
  throw new Error(`unknown operation ${operation}`);
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
