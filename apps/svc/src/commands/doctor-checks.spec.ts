import type { DoctorReport } from '@app/contracts';

import {
  clockCheck,
  publicUrlCheck,
  secretCheck,
  SKEW_FAIL_MS,
  SKEW_WARN_MS,
  trustedProxiesCheck,
  readinessCheck,
} from './doctor-checks';

function report(overrides: Partial<DoctorReport> = {}): DoctorReport {
  const replica = {
    name: 'a:7700:1',
    version: '0.1.0',
    secret_fingerprint: 'f00d',
    clock_skew_ms: 3,
    started_at: '2026-01-01T00:00:00.000Z',
    seen_at: '2026-01-01T00:01:00.000Z',
  };
  return {
    replica: {
      name: 'a:7700:1',
      version: '0.1.0',
      started_at: replica.started_at,
      secret_fingerprint: 'f00d',
      secret_source: 'environment',
    },
    database: {
      server_version: '17.6',
      embedded: false,
      data_directory: null,
      migrations: { applied: 15, latest: 'X', pending: [], unknown: [] },
    },
    clock: { skew_ms: 2, uncertainty_ms: 1 },
    replicas: [replica],
    replicas_window_seconds: 180,
    public_url: 'https://svc.example.com',
    listen: { host: '0.0.0.0', port: 7700 },
    trusted_proxies: ['10.0.0.2'],
    mode: 'self-host',
    ...overrides,
  };
}

describe('doctor checks', () => {
  it('should grade clock skew against PostgreSQL by the worst replica', () => {
    expect(clockCheck(report()).status).toBe('ok');
    expect(clockCheck(report({ clock: { skew_ms: -SKEW_WARN_MS, uncertainty_ms: 1 } })).status).toBe('warn');
    const far = report();
    far.replicas.push({ ...far.replicas[0], name: 'b:7700:2', clock_skew_ms: SKEW_FAIL_MS + 1 });
    const result = clockCheck(far);
    expect(result.status).toBe('fail');
    expect(result.detail).toContain('b:7700:2');
  });

  it('should fail an https public URL whose TLS does not verify from here', () => {
    expect(
      publicUrlCheck(report(), { ok: false, detail: 'unreachable over TLS from here: UNABLE_TO_VERIFY_LEAF_SIGNATURE' })
        .status,
    ).toBe('fail');
    expect(publicUrlCheck(report(), { ok: true, detail: 'TLS verified' }).status).toBe('ok');
    expect(publicUrlCheck(report({ public_url: 'http://127.0.0.1:7700' }), null).status).toBe('ok');
  });

  it('should warn behind a TLS proxy with no trusted proxy, and fail a catch-all', () => {
    expect(trustedProxiesCheck(report({ trusted_proxies: [] })).status).toBe('warn');
    expect(trustedProxiesCheck(report({ trusted_proxies: ['::/0'] })).status).toBe('fail');
    expect(
      trustedProxiesCheck(report({ public_url: null, listen: { host: '127.0.0.1', port: 7700 }, trusted_proxies: [] }))
        .status,
    ).toBe('ok');
  });

  it('should warn when replicas share a secret read from their data folders', () => {
    const r = report();
    r.replica.secret_source = 'file';
    r.replicas.push({ ...r.replicas[0], name: 'b:7700:2' });
    expect(secretCheck(r).status).toBe('warn');
  });
});

describe('readinessCheck (issue 40)', () => {
  it('should name PostgreSQL when /readyz answers database_unavailable', () => {
    expect(readinessCheck(503, { code: 'database_unavailable', message: 'x', checks: {} })).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/^PostgreSQL is unreachable from the daemon/),
    });
  });
  it('should tell pending migrations and a draining replica apart', () => {
    expect(
      readinessCheck(503, { code: 'service_unavailable', checks: { migrations: { status: 'down', pending: true } } })
        .detail,
    ).toMatch(/^migrations are pending/);
    expect(readinessCheck(503, { code: 'shutting_down' }).detail).toMatch(/shutting down/);
    expect(readinessCheck(200, {}).status).toBe('ok');
  });
});
