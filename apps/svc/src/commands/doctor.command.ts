import { Command } from 'commander';

import { apiFor, SvcConnectionError, SvcHttpError } from '@app/client';
import type { DoctorReport } from '@app/contracts';

import { paint } from '../color';
import { connectionFor } from '../context';
import { action, EXIT, output } from '../output';
import { runOffline } from './offline-tool';
import {
  clockCheck,
  DoctorCheck,
  embeddedCheck,
  failed,
  localEmbeddedLinks,
  migrationsCheck,
  publicUrlCheck,
  readinessCheck,
  secretCheck,
  trustedProxiesCheck,
} from './doctor-checks';

// A TLS failure here (unknown CA, wrong name, expired) is what users would hit.
async function tlsOf(publicUrl: string | null): Promise<{ ok: boolean; detail: string } | null> {
  if (!publicUrl || !publicUrl.startsWith('https:')) return null;
  try {
    const res = await fetch(new URL('readyz', publicUrl.endsWith('/') ? publicUrl : `${publicUrl}/`), {
      signal: AbortSignal.timeout(5000),
    });
    return { ok: res.status === 200, detail: `TLS verified, /readyz answered ${res.status}` };
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return { ok: false, detail: `unreachable over TLS from here: ${cause?.code ?? cause?.message ?? String(err)}` };
  }
}

const LOCAL = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\]|0\.0\.0\.0)$/i;

// Only for a daemon of this machine (a loopback URL) or when SVC_DATABASE_URL says which database.
async function offlineChecks(url: string): Promise<DoctorCheck[]> {
  if (!process.env.SVC_DATABASE_URL && !LOCAL.test(new URL(url).hostname)) return [];
  try {
    return await runOffline((tool) => tool.offlineDoctor(process.env));
  } catch (err) {
    return [{ check: 'offline checks', status: 'warn', detail: (err as Error).message }];
  }
}

async function runChecks(command: Command): Promise<DoctorCheck[]> {
  const connection = connectionFor(command);
  const api = apiFor(connection);
  const checks: DoctorCheck[] = [];
  try {
    const ready = await api.readiness();
    checks.push(readinessCheck(ready.status, ready.body));
  } catch (err) {
    if (!(err instanceof SvcConnectionError)) throw err;
    return [{ check: 'daemon', status: 'fail', detail: err.message }, ...(await offlineChecks(connection.url))];
  }
  let report: DoctorReport;
  try {
    if (!connection.token) throw new SvcHttpError(401, { code: 'unauthorized', message: 'no credential' });
    report = await api.doctor();
  } catch (err) {
    if (!(err instanceof SvcHttpError)) throw err;
    const why =
      err.status === 401 || err.status === 403
        ? `the report needs a server admin's token (${err.code})`
        : `${err.code}: ${err.body.message}`;
    return [...checks, { check: 'report', status: 'fail', detail: why }];
  }
  checks.push(
    migrationsCheck(report),
    secretCheck(report),
    publicUrlCheck(report, await tlsOf(report.public_url)),
    trustedProxiesCheck(report),
    clockCheck(report),
    embeddedCheck(report, report.database.embedded ? localEmbeddedLinks() : null),
  );
  return checks;
}

function printChecks(checks: DoctorCheck[]): void {
  const p = paint();
  const mark = { ok: p.green('ok  '), warn: p.yellow('warn'), fail: p.red('FAIL') };
  const width = Math.max(...checks.map((c) => c.check.length));
  for (const c of checks) process.stdout.write(`${mark[c.status]}  ${c.check.padEnd(width)}  ${c.detail}\n`);
}

export function registerDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description('check the team server: database, migrations, secret, public URL and TLS, proxies, clocks')
    .addHelpText('after', '\nEach check is one line (ok, warn or FAIL); the exit code is 1 when a check fails.')
    .action(
      action(async (_options: unknown, command: Command) => {
        const checks = await runChecks(command);
        output(command, { ok: !failed(checks), checks }, (body) => printChecks(body.checks));
        if (failed(checks)) process.exitCode = EXIT.error;
      }),
    );
}
