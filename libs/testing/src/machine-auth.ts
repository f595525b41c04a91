import { createHash, randomBytes } from 'node:crypto';
import { Client } from 'pg';

import { waitFor } from './wait-for';

export interface HttpResult<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function sql<T = Record<string, unknown>>(
  url: string,
  text: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

export interface TestActor {
  id: number;
  name: string;
  token: string;
}

export async function createActor(
  url: string,
  options: {
    name: string;
    org?: string;
    role?: 'admin' | 'member';
    membership?: 'active' | 'disabled' | null;
    status?: 'active' | 'disabled';
  },
): Promise<TestActor> {
  const token = `svc_${randomBytes(32).toString('base64url')}`;
  const hash = createHash('sha256').update(token, 'utf8').digest();
  const [actor] = await sql<{ id: number }>(
    url,
    `INSERT INTO actors (name, kind, status) VALUES ($1, 'person', $2) RETURNING id`,
    [options.name, options.status ?? 'active'],
  );
  await sql(url, `INSERT INTO api_tokens (actor_id, name, token_hash, token_prefix) VALUES ($1, 'test', $2, 'svc_x')`, [
    actor.id,
    hash,
  ]);
  const org = options.org ?? 'default';
  await sql(url, `INSERT INTO organizations (slug, name) VALUES ($1, $1) ON CONFLICT (slug) DO NOTHING`, [org]);
  if (options.membership !== null) {
    await sql(
      url,
      `INSERT INTO memberships (organization_id, actor_id, role, status)
       SELECT id, $2, $3, $4 FROM organizations WHERE slug = $1`,
      [org, actor.id, options.role ?? 'member', options.membership ?? 'active'],
    );
  }
  return { id: actor.id, name: options.name, token };
}

export async function http<T = Record<string, unknown>>(
  base: string,
  method: string,
  path: string,
  options: { body?: unknown; raw?: string; headers?: Record<string, string>; token?: string; clientIp?: string } = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.clientIp) headers['x-forwarded-for'] = options.clientIp;
  let body: string | undefined = options.raw;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${base}${path}`, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

export interface Started {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

export function startMachineAuthorization(
  base: string,
  machine: { id: string; name: string },
  clientIp?: string,
): Promise<HttpResult<Started>> {
  return http<Started>(base, 'POST', '/api/machine/authorizations', {
    body: { machine_id: machine.id, machine_name: machine.name },
    clientIp,
  });
}

export function pollMachineAuthorization(
  base: string,
  deviceCode: string,
  machine: { id: string; name: string },
  clientIp?: string,
): Promise<HttpResult> {
  return http(base, 'POST', '/api/machine/authorizations/token', {
    body: { device_code: deviceCode, machine_id: machine.id, machine_name: machine.name },
    clientIp,
  });
}

export function resolveMachineAuthorization(
  base: string,
  token: string,
  code: string,
  action: 'approve' | 'deny',
  clientIp?: string,
): Promise<HttpResult> {
  return http(base, 'POST', '/v1/machine-authorizations/resolve', { body: { code, action }, token, clientIp });
}

let ipCounter = 0;
// Consecutive fresh addresses fall in distinct /16s (and /24s), the units of the code pool's per-network shares, so
// tests that start many codes never meet a share by accident.
export function freshClientIp(): string {
  ipCounter += 1;
  return `10.${ipCounter & 0xff}.${(ipCounter >> 8) & 0xff}.${((ipCounter >> 16) & 0xff) + 1}`;
}

// Budgets are per minute on the database clock: start a budget test early in a minute so it fits in one window.
// Waits at most neededSeconds (until the next minute starts), never a whole minute: more than 30 s is refused.
export async function awaitRoomInMinute(url: string, neededSeconds = 15): Promise<void> {
  if (!(neededSeconds > 0 && neededSeconds <= 30)) {
    throw new Error(`awaitRoomInMinute: ${neededSeconds} s of one minute is more than a test may wait for`);
  }
  await waitFor(
    async () => {
      const [{ s }] = await sql<{ s: number }>(url, `SELECT extract(second FROM clock_timestamp())::float AS s`);
      return s <= 60 - neededSeconds;
    },
    { timeout: (neededSeconds + 2) * 1000, interval: 250, what: `${neededSeconds} s left in the database's minute` },
  );
}
