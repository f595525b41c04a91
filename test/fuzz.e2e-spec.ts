import { AppModule } from '../apps/daemon/src/app.module';
import { parseConfig } from '../apps/daemon/src/config/config';
import {
  createProject,
  createTestDatabase,
  DaemonProcess,
  discoverRoutes,
  Fuzzer,
  fuzzRoutes,
  insertItems,
  startDaemonProcess,
  TestDatabase,
  withClient,
} from '@app/testing';

// Cases and time for CI: a few thousand when the machine is idle, cut short (not failed) on a loaded one. The long
// run lives in bench/ (npm run bench:faults).
const NUM_RUNS = Number(process.env.SVC_FUZZ_RUNS ?? 2500);
const TIME_LIMIT_MS = Number(process.env.SVC_FUZZ_TIME_MS ?? 12000);

// Hostile paths, queries and bodies for every route the Nest router registers (issue 10, item 4a): no 5xx, every
// refusal carries a code, and a refused request changes no row.
describe('fuzzing every route', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let fuzzer: Fuzzer;
  const routes = discoverRoutes(AppModule.forRoot(parseConfig({ SVC_HOME: '/nonexistent' }), 'postgres://unused'));

  beforeAll(async () => {
    db = await createTestDatabase('server', 'fuzz');
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url, SVC_API_TRUSTED_PROXIES: '127.0.0.1,::1' } });
    await withClient(db.url, async (client) => {
      await createProject(client, { id: 'shop', prefix: 'SHOP' });
      await insertItems(client, 'shop', [
        { title: 'one' },
        { title: 'two', status: 'implementing' },
        { workflow: 'epic' },
      ]);
    });
    fuzzer = new Fuzzer({ url: daemon.url, token: daemon.token!, databaseUrl: db.url }, routes);
    await fuzzer.open();
  });

  afterAll(async () => {
    await fuzzer?.close();
    await daemon?.stop();
    await db?.drop();
  });

  it('should discover the routes from the Nest router, the ones of this issue included', () => {
    const names = routes.map((r) => `${r.method} ${r.path}`);
    expect(names).toEqual(
      expect.arrayContaining([
        'GET /healthz',
        'POST /v1/items',
        'GET /v1/epics/:ref/tasks/:num',
        'GET /v1/sessions/:id',
        'POST /api/machine/authorizations/token',
        'POST /machine-approval/session',
      ]),
    );
    expect(routes.length).toBeGreaterThan(60);
  });

  it('should answer hostile input on every route with a coded 4xx that changes nothing, or a success', async () => {
    const run = await fuzzRoutes(fuzzer, { numRuns: NUM_RUNS, timeLimitMs: TIME_LIMIT_MS, concurrency: 4 });
    process.stderr.write(
      `fuzz: ${JSON.stringify({ ...run, ...fuzzer.stats, failures: fuzzer.stats.failures.length })}\n`,
    );
    expect(fuzzer.stats.failures.slice(0, 5)).toEqual([]);
    expect(fuzzer.stats.routes_hit).toBe(routes.length);
    // Even cut short by the time limit on a loaded machine, the random phase must have run for real.
    expect(run.numRuns).toBeGreaterThan(100);
  });
});
