import { Client } from 'pg';

import {
  createProject,
  createTestDatabase,
  DaemonProcess,
  insertItems,
  startDaemonProcess,
  TestDatabase,
  waitFor,
} from '@app/testing';
import { freshClientIp, http, startMachineAuthorization } from '@app/testing/machine-auth';

const SECRET = 'e2e-crash-consistency-0123456789abcdef0123456789';

// kill -9 of the daemon while dispatches and approvals are in flight (issue 10, item 4c): every write is one
// transaction, so afterwards each claim has its decision event and each event its claim, each consumed code its
// one credential, and everything acknowledged before the kill is there.
describe('kill -9 of the daemon mid-write', () => {
  let db: TestDatabase;
  let pg: Client;
  let daemon: DaemonProcess;
  let token: string; // the first boot's admin token (later daemons on the same data print none)
  const env = () => ({ SVC_DATABASE_URL: db.url, SVC_SERVER_SECRET: SECRET, SVC_API_TRUSTED_PROXIES: '127.0.0.1,::1' });

  // Runs `work` for each input with `concurrency` in flight and SIGKILLs the daemon once `killAfter` were answered
  // 2xx, while the others are still on the wire. Returns the inputs acknowledged before the kill.
  async function killDuring<T>(
    inputs: T[],
    concurrency: number,
    killAfter: number,
    work: (input: T) => Promise<boolean>,
  ) {
    const acknowledged: T[] = [];
    const failures: string[] = []; // refusals before the kill: none is expected
    let killed = false;
    let next = 0;
    const worker = async () => {
      while (!killed && next < inputs.length) {
        const input = inputs[next++];
        const ok = await work(input).catch((err: Error) => {
          if (!killed) failures.push(err.message);
          return false;
        });
        if (ok && !killed) acknowledged.push(input);
        if (!killed && acknowledged.length >= killAfter) {
          killed = true;
          daemon.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    await daemon.kill();
    expect(failures).toEqual([]);
    expect(killed).toBe(true);
    return acknowledged;
  }

  beforeAll(async () => {
    db = await createTestDatabase('server', 'crash');
    daemon = await startDaemonProcess({ env: env() });
    token = daemon.token!;
    pg = new Client({ connectionString: db.url });
    await pg.connect();
  });

  afterAll(async () => {
    await pg?.end();
    await daemon?.stop();
    await db?.drop();
  });

  it('should leave every charge dispatch whole: claim and decision event together or neither', async () => {
    await createProject(pg, { id: 'crash', prefix: 'CR' });
    const items = await insertItems(
      pg,
      'crash',
      Array.from({ length: 60 }, () => ({ status: 'planned' })),
    );
    const sessions: { session: number; ref: string }[] = [];
    for (const item of items) {
      const res = await http(daemon.url, 'POST', '/v1/sessions', {
        token,
        body: { harness: 'crash-test', model: 'm', project: 'crash' },
      });
      expect(res.status).toBe(201);
      sessions.push({ session: (res.body as { session_id: number }).session_id, ref: item.ref });
    }
    const acknowledged = await killDuring(sessions, 8, 20, async ({ session, ref }) => {
      const res = await http(daemon.url, 'POST', '/v1/charge/dispatch', {
        token,
        body: { session_id: session, item_id: ref, wip_cap: 100000 },
      });
      if (res.status !== 200) throw new Error(`dispatch ${res.status} ${res.text}`);
      return true;
    });

    const claims = (
      await pg.query<{ pair: string }>(
        `SELECT p.public_item_prefix || '-' || i.project_sequence || '/' || c.session_id AS pair
           FROM item_claims c JOIN items i ON i.id = c.item_id JOIN projects p ON p.id = i.project
          WHERE c.project = 'crash'`,
      )
    ).rows.map((r) => r.pair);
    const events = (
      await pg.query<{ pair: string }>(
        `SELECT item_ref || '/' || session_id AS pair FROM events
          WHERE name = 'ChargeDecisionMade' AND project = 'crash' AND payload -> 'detail' ->> 'dispatched' = 'true'`,
      )
    ).rows.map((r) => r.pair);
    expect([...claims].sort()).toEqual([...events].sort());
    expect(new Set(events).size).toBe(events.length);
    for (const { session, ref } of acknowledged) expect(claims).toContain(`${ref}/${session}`);

    // A new daemon on the same data dispatches what is left.
    daemon = await startDaemonProcess({ env: env() });
    const left = sessions.find((s) => !claims.includes(`${s.ref}/${s.session}`))!;
    const again = await http(daemon.url, 'POST', '/v1/charge/dispatch', {
      token,
      body: { session_id: left.session, item_id: left.ref, wip_cap: 100000 },
    });
    expect(again.status).toBe(200);
  });

  it('should leave every approval whole: each consumed code has exactly one credential, each credential works', async () => {
    const codes: { device_code: string; user_code: string; machine: { id: string; name: string }; ip: string }[] = [];
    for (let i = 0; i < 40; i++) {
      const machine = { id: `crash-machine-${i}`, name: `crash ${i}` };
      const ip = freshClientIp();
      const started = await startMachineAuthorization(daemon.url, machine, ip);
      expect(started.status).toBe(201);
      codes.push({ device_code: started.body.device_code, user_code: started.body.user_code, machine, ip });
    }
    const credentials: string[] = [];
    const acknowledged = await killDuring(codes, 8, 12, async (code) => {
      const approved = await http(daemon.url, 'POST', '/v1/machine-authorizations/resolve', {
        token,
        body: { code: code.user_code, action: 'approve' },
      });
      if (approved.status !== 200) throw new Error(`resolve ${approved.status} ${approved.text}`);
      const polled = await http(daemon.url, 'POST', '/api/machine/authorizations/token', {
        body: { device_code: code.device_code, machine_id: code.machine.id, machine_name: code.machine.name },
        clientIp: code.ip,
      });
      if (polled.status !== 200) throw new Error(`poll ${polled.status} ${polled.text}`);
      credentials.push((polled.body as { token: string }).token);
      return true;
    });
    expect(acknowledged.length).toBeGreaterThanOrEqual(12);

    const rows = (
      await pg.query<{
        status: string;
        decided_by: number | null;
        organization_id: number | null;
        credentials: string;
      }>(
        `SELECT a.status, a.decided_by, a.organization_id,
                (SELECT count(*) FROM machine_credentials c WHERE c.authorization_id = a.id) AS credentials
           FROM machine_authorizations a WHERE a.machine_id LIKE 'crash-machine-%'`,
      )
    ).rows;
    for (const row of rows) {
      expect(Number(row.credentials)).toBe(row.status === 'consumed' ? 1 : 0);
      if (row.status === 'approved' || row.status === 'consumed') {
        expect(row.decided_by).not.toBeNull();
        expect(row.organization_id).not.toBeNull();
      }
    }
    const orphans = await pg.query(
      `SELECT 1 FROM machine_credentials c WHERE c.machine_id LIKE 'crash-machine-%'
          AND NOT EXISTS (SELECT 1 FROM machine_authorizations a WHERE a.id = c.authorization_id AND a.status = 'consumed')`,
    );
    expect(orphans.rowCount).toBe(0);

    // Every credential delivered before the kill works on a new daemon.
    daemon = await startDaemonProcess({ env: env() });
    await waitFor(async () => (await fetch(`${daemon.url}/readyz`)).status === 200, { what: 'readiness' });
    for (const credential of credentials) {
      const me = await fetch(`${daemon.url}/v1/whoami`, { headers: { authorization: `Bearer ${credential}` } });
      expect(me.status).toBe(200);
    }
  });
});
