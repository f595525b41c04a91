import { createTestDatabase, DaemonProcess, startDaemonProcess, TestDatabase } from '@app/testing';
import { HttpResult, sql, Started, startMachineAuthorization } from '@app/testing/machine-auth';

const SECRET = 'e2e-code-pool-fairness-0123456789abcdef';
// The share of the 128-code server pool one network (IPv4 /24, IPv6 /48) may hold.
const NETWORK_SHARE = 32;
// The share one wide network (IPv4 /16, IPv6 /32) may hold (issue 36).
const WIDE_NETWORK_SHARE = 48;

// Issue 24: a few addresses of one network must not fill the server-wide pool and lock every machine out.
describe('per-network share of the device-code pool', () => {
  let db: TestDatabase;
  let one: DaemonProcess;
  let two: DaemonProcess;

  beforeAll(async () => {
    db = await createTestDatabase('server', 'code_pool_fairness');
    // Two replicas on one database; the tests reach them from loopback, a declared proxy, so X-Forwarded-For names
    // the client address.
    const env = { SVC_DATABASE_URL: db.url, SVC_SERVER_SECRET: SECRET, SVC_API_TRUSTED_PROXIES: '127.0.0.1,::1' };
    one = await startDaemonProcess({ env });
    two = await startDaemonProcess({ env });
  });

  afterAll(async () => {
    await one?.stop();
    await two?.stop();
    await db?.drop();
  });

  let serial = 0;
  const start = (ip: string, daemon: DaemonProcess = one): Promise<HttpResult<Started>> => {
    serial += 1;
    return startMachineAuthorization(daemon.url, { id: `m-${serial}`, name: `machine-${serial}` }, ip);
  };

  // One start per address (the start budget is 6 per client per minute), alternating between the replicas.
  async function fill(addresses: string[]): Promise<void> {
    for (const [i, ip] of addresses.entries()) {
      const res = await start(ip, i % 2 === 0 ? one : two);
      expect(res.status).toBe(201);
    }
  }

  const openCodes = async (network: string) =>
    (
      await sql<{ n: number }>(
        db.url,
        `SELECT count(*)::int AS n FROM machine_authorizations
          WHERE network_key = $1 AND status IN ('pending', 'approved') AND expires_at > now()`,
        [network],
      )
    )[0].n;

  function expectNetworkRefusal(res: HttpResult<Started>, network: string): void {
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'authorization_client_capacity' });
    const message = (res.body as unknown as { message: string }).message;
    expect(message).toContain(network);
    expect(message).toMatch(/expire/);
    expect(res.headers.get('retry-after')).toBeNull();
  }

  it('should refuse a /24 past its share while another network still gets a code', async () => {
    await fill(Array.from({ length: NETWORK_SHARE }, (_, i) => `203.0.113.${i + 1}`));
    expect(await openCodes('203.0.113.0/24')).toBe(NETWORK_SHARE);

    // A fresh address of the same /24, with no code of its own, is refused on both replicas...
    expectNetworkRefusal(await start('203.0.113.200'), '203.0.113.0/24');
    expectNetworkRefusal(await start('203.0.113.201', two), '203.0.113.0/24');
    // ...also when it arrives as an IPv4-mapped IPv6 address.
    expectNetworkRefusal(await start('::ffff:203.0.113.202'), '203.0.113.0/24');
    expect(await openCodes('203.0.113.0/24')).toBe(NETWORK_SHARE);

    // The neighbouring /24 and an IPv6 client are unaffected.
    expect((await start('203.0.114.7')).status).toBe(201);
    expect((await start('2001:db8:77::1', two)).status).toBe(201);
  });

  it('should free the share when the network’s codes expire', async () => {
    await sql(
      db.url,
      `UPDATE machine_authorizations SET expires_at = now() - interval '1 second' WHERE network_key = '203.0.113.0/24'`,
    );
    expect((await start('203.0.113.203')).status).toBe(201);
  });

  it('should refuse an IPv6 /48 past its share while another /48 still gets a code', async () => {
    // Each address in its own /64 (its own client budget), all in 2001:db8:aa::/48.
    await fill(Array.from({ length: NETWORK_SHARE }, (_, i) => `2001:db8:aa:${(i + 1).toString(16)}::1`));
    expect(await openCodes('2001:db8:aa::/48')).toBe(NETWORK_SHARE);

    expectNetworkRefusal(await start('2001:db8:aa:ffff::9'), '2001:db8:aa::/48');
    expect((await start('2001:db8:ab::1', two)).status).toBe(201);
  });

  // Issue 36: four /24s of one operator filled the whole pool; their /16 now holds its own share.
  it('should refuse a /16 past its share, however many of its /24s ask, while another /16 still gets a code', async () => {
    await sql(db.url, `UPDATE machine_authorizations SET expires_at = now() - interval '1 second'`);
    const addresses = [
      ...Array.from({ length: NETWORK_SHARE }, (_, i) => `100.64.1.${i + 1}`),
      ...Array.from({ length: WIDE_NETWORK_SHARE - NETWORK_SHARE }, (_, i) => `100.64.2.${i + 1}`),
    ];
    await fill(addresses);
    // a third and a fourth /24 of the same /16, each with room of its own, on both replicas
    for (const [ip, daemon] of [
      ['100.64.3.1', one],
      ['100.64.4.1', two],
      ['::ffff:100.64.5.1', one],
    ] as const) {
      const res = await start(ip, daemon);
      expectNetworkRefusal(res, '100.64.0.0/16');
      expect((res.body as unknown as { message: string }).message).toContain(String(WIDE_NETWORK_SHARE));
    }
    const open = await sql<{ n: number }>(
      db.url,
      `SELECT count(*)::int AS n FROM machine_authorizations
        WHERE client_key LIKE '100.64.%' AND status IN ('pending', 'approved') AND expires_at > now()`,
    );
    expect(open[0].n).toBe(WIDE_NETWORK_SHARE);
    // the neighbouring /16 is unaffected
    expect((await start('100.65.3.1', two)).status).toBe(201);
    await sql(db.url, `UPDATE machine_authorizations SET expires_at = now() - interval '1 second'`);
  });

  it('should refuse an IPv6 /32 past its share while another /32 still gets a code', async () => {
    // each in its own /48 (so under the /48 share), all in 2001:db8::/32
    const addresses = Array.from({ length: WIDE_NETWORK_SHARE }, (_, i) => `2001:db8:${(0x100 + i).toString(16)}::1`);
    await fill(addresses);
    expectNetworkRefusal(await start('2001:db8:ffff::1'), '2001:db8::/32');
    expect((await start('2001:db9:1::1', two)).status).toBe(201);
    await sql(db.url, `UPDATE machine_authorizations SET expires_at = now() - interval '1 second'`);
  });

  it('should admit exactly one of racing starts for the last place of a share, across replicas', async () => {
    await fill(Array.from({ length: NETWORK_SHARE - 1 }, (_, i) => `198.51.100.${i + 1}`));
    const racing = await Promise.all(
      Array.from({ length: 10 }, (_, i) => start(`198.51.100.${100 + i}`, i % 2 === 0 ? one : two)),
    );
    const statuses = racing.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 403)).toHaveLength(9);
    expect(await openCodes('198.51.100.0/24')).toBe(NETWORK_SHARE);
  });
});
