import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Agent, request } from 'undici';

import { REPO_ROOT } from './daemon-process';
import { waitFor } from './wait-for';

class CaddyExited extends Error {}

export const CADDYFILE = join(REPO_ROOT, 'docker', 'Caddyfile');

// Debian's package puts caddy in /usr/bin; `.ci/run` installs it when missing.
export function caddyBinary(): string | null {
  for (const candidate of ['/usr/bin/caddy', '/usr/local/bin/caddy']) if (existsSync(candidate)) return candidate;
  try {
    return execFileSync('sh', ['-c', 'command -v caddy'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface CaddyProcess {
  url: string;
  port: number;
  httpPort: number;
  dir: string;
  // the internal CA's root certificate: NODE_EXTRA_CA_CERTS for subprocesses, `ca` for in-process clients
  rootCaPath: string;
  rootCa: string;
  child: ChildProcess;
  logs: () => string;
  // an undici dispatcher that trusts the root and, when given, connects from that local address (e.g. 127.0.0.2,
  // so the proxy sees a client other than itself on loopback)
  agent: (localAddress?: string) => Agent;
  stop: () => Promise<void>;
}

export interface StartCaddyOptions {
  upstreams: string[];
  site?: string;
  // also waits until every upstream has served a request (all passed their health check)
  upstreamHeader?: boolean;
  healthInterval?: string;
  // generous by default: on a loaded 2-core machine a booting replica may take seconds to answer /readyz
  healthTimeout?: string;
  caddyfile?: string;
  // the HTTPS and HTTP ports (default: free ones); pass the HTTPS one when the daemons must know the public URL first
  port?: number;
  httpPort?: number;
  timeoutMs?: number;
}

// A response header naming the replica that served a request; CI only (compose leaves SVC_PROXY_EXTRA empty).
export const UPSTREAM_HEADER = 'x-svc-upstream';
export const UPSTREAM_HEADER_LINE = 'header_down X-Svc-Upstream {http.reverse_proxy.upstream.hostport}';

// HOME and XDG_DATA_HOME in a temporary folder: no root, nothing written to the user's folders or the system trust
// store.
export async function startCaddy(options: StartCaddyOptions): Promise<CaddyProcess> {
  const binary = caddyBinary();
  if (!binary) throw new Error('caddy is not installed (apt-get install -y caddy; .ci/run does it)');
  const dir = mkdtempSync(join(tmpdir(), 'svc-caddy-'));
  const port = options.port ?? (await freePort());
  const httpPort = options.httpPort ?? (await freePort());
  const site = options.site ?? '127.0.0.1';
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    XDG_DATA_HOME: join(dir, 'data'),
    XDG_CONFIG_HOME: join(dir, 'config'),
    SVC_SITE: site,
    SVC_TLS: 'internal',
    SVC_UPSTREAMS: options.upstreams.join(' '),
    SVC_HTTP_PORT: String(httpPort),
    SVC_HTTPS_PORT: String(port),
    SVC_HEALTH_INTERVAL: options.healthInterval ?? '1s',
    SVC_HEALTH_TIMEOUT: options.healthTimeout ?? '10s',
    SVC_PROXY_EXTRA: options.upstreamHeader ? UPSTREAM_HEADER_LINE : '',
  };
  const child = spawn(binary, ['run', '--config', options.caddyfile ?? CADDYFILE, '--adapter', 'caddyfile'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const keep = (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-200_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const rootCaPath = join(dir, 'data', 'caddy', 'pki', 'authorities', 'local', 'root.crt');
  const url = `https://${site}:${port}`;
  const agents: Agent[] = [];
  const agent = (localAddress?: string) => {
    const created = new Agent({ localAddress, connect: { ca: readFileSync(rootCaPath, 'utf8') } });
    agents.push(created);
    return created;
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    await Promise.all(agents.map((a) => a.close().catch(() => undefined)));
    rmSync(dir, { recursive: true, force: true });
  };
  let lastError = 'not started';
  const seen = new Set<string>();
  const ready = async (): Promise<boolean> => {
    if (child.exitCode !== null) throw new CaddyExited(`caddy exited with code ${child.exitCode}:\n${log}`);
    if (!existsSync(rootCaPath)) return false;
    const probe = new Agent({ connect: { ca: readFileSync(rootCaPath, 'utf8') } });
    try {
      const res = await request(`${url}/readyz`, { dispatcher: probe, headersTimeout: 3000, bodyTimeout: 3000 });
      await res.body.dump();
      if (res.statusCode !== 200) {
        lastError = `GET /readyz answered ${res.statusCode}`;
        return false;
      }
      if (!options.upstreamHeader) return true;
      seen.add(String(res.headers[UPSTREAM_HEADER]));
      lastError = `upstreams seen healthy: ${[...seen].join(', ')}`;
      return options.upstreams.every((u) => seen.has(u));
    } catch (err) {
      if (err instanceof CaddyExited) throw err;
      lastError = (err as Error).message;
      return false;
    } finally {
      await probe.close().catch(() => undefined);
    }
  };
  const died: { error: CaddyExited | null } = { error: null };
  await waitFor(
    () =>
      ready().catch((err: unknown) => {
        if (!(err instanceof CaddyExited)) throw err;
        died.error = err;
        return true;
      }),
    { timeout: options.timeoutMs ?? 40_000, interval: 100 },
  ).catch(async () => {
    await stop();
    throw new Error(`caddy did not serve ${url} in time (${lastError}):\n${log}`);
  });
  if (died.error) throw died.error;
  return {
    url,
    port,
    httpPort,
    dir,
    rootCaPath,
    rootCa: readFileSync(rootCaPath, 'utf8'),
    child,
    logs: () => log,
    agent,
    stop,
  };
}
