import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { load as loadYaml } from 'js-yaml';

import { DAEMON_NODE_FLAGS } from '@app/client/daemon-launch';
import { REPO_ROOT } from '@app/testing';

// docker/compose.yaml as an operator runs it (issue 40, "Compose you can run"). There is no container engine on
// these machines, so the file is parsed and its invariants checked: every secret required, every image pinned by
// digest, Caddy's fixed address outside the range compose hands out, a backup service with a volume and retention.
// (test/team-server-topology.e2e-spec.ts checks the services, health gates and the Caddyfile against the same file.)

const COMPOSE_TEXT = readFileSync(join(REPO_ROOT, 'docker', 'compose.yaml'), 'utf8');
const DOCKERFILE = readFileSync(join(REPO_ROOT, 'docker', 'Dockerfile'), 'utf8');

type Service = {
  image?: string;
  build?: unknown;
  command?: string[] | string;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] | string };
  volumes?: string[];
  networks?: string[] | Record<string, { ipv4_address?: string }>;
};
type Compose = {
  services: Record<string, Service>;
  networks: Record<string, { ipam?: { config: { subnet: string; ip_range?: string; gateway?: string }[] } }>;
  volumes: Record<string, unknown>;
};

const compose = loadYaml(COMPOSE_TEXT) as Compose;

// Compose's interpolation: ${VAR}, ${VAR:-default}, ${VAR:?error}, and $$ for a literal $.
function interpolate(text: string, vars: Record<string, string> = {}): string {
  return text
    .replace(/\$\{([A-Z0-9_]+)(?::([-?])([^}]*))?\}/g, (_, name: string, kind?: string, arg?: string) => {
      const value = vars[name];
      if (value !== undefined && value !== '') return value;
      if (kind === '?') throw new Error(`compose would refuse: ${arg}`);
      return kind === '-' ? (arg ?? '') : '';
    })
    .replace(/\$\$/g, '$');
}

function ipv4(text: string): number {
  const parts = text.split('.').map(Number);
  expect(parts).toHaveLength(4);
  return parts.reduce((n, p) => n * 256 + p, 0);
}

function inCidr(address: string, cidr: string): boolean {
  const [base, bits] = cidr.split('/');
  const size = 2 ** (32 - Number(bits));
  const start = Math.floor(ipv4(base) / size) * size;
  return ipv4(address) >= start && ipv4(address) < start + size;
}

const SECRETS = { SVC_DB_PASSWORD: 'p'.repeat(24), SVC_SERVER_SECRET: 's'.repeat(48), SVC_BOOTSTRAP_TOKEN: 'svc_x' };
const withSecrets = (value: string) => interpolate(value, SECRETS);

describe('docker/compose.yaml (no container engine here: parsed and checked)', () => {
  it('should require every secret: no default for the database password, the server secret or the first token', () => {
    for (const name of Object.keys(SECRETS)) {
      expect(`${name}: ${COMPOSE_TEXT.includes(`\${${name}:?`)}`).toBe(`${name}: true`);
      expect(`${name}: ${new RegExp(`\\$\\{${name}(:?-|\\})`).test(COMPOSE_TEXT)}`).toBe(`${name}: false`);
    }
    // no variable that names a password, secret or token has a default anywhere in the file
    const defaulted = [...COMPOSE_TEXT.matchAll(/\$\{([A-Z0-9_]+):-/g)].map((m) => m[1]);
    expect(defaulted.filter((name) => /PASSWORD|SECRET|TOKEN/.test(name))).toEqual([]);
    const { daemon, postgres, backup } = compose.services;
    expect(() => interpolate(postgres.environment!.POSTGRES_PASSWORD)).toThrow(/SVC_DB_PASSWORD/);
    expect(() => interpolate(daemon.environment!.SVC_DATABASE_URL)).toThrow(/SVC_DB_PASSWORD/);
    expect(() => interpolate(backup.environment!.SVC_DATABASE_URL)).toThrow(/SVC_DB_PASSWORD/);
    expect(withSecrets(daemon.environment!.SVC_DATABASE_URL)).toBe(
      `postgres://svc:${SECRETS.SVC_DB_PASSWORD}@postgres:5432/svc`,
    );
    expect(withSecrets(backup.environment!.SVC_DATABASE_URL)).toBe(withSecrets(daemon.environment!.SVC_DATABASE_URL));
  });

  it('should pin every pulled image by digest, Caddy at a current release', () => {
    const pulled = Object.entries(compose.services).filter(([, s]) => s.build === undefined);
    expect(pulled.map(([name]) => name).sort()).toEqual(['caddy', 'postgres']);
    for (const [name, service] of pulled) {
      expect(`${name}: ${service.image}`).toMatch(new RegExp(`^${name}: [a-z0-9./-]+:[\\w.-]+@sha256:[0-9a-f]{64}$`));
    }
    const caddyVersion = /^caddy:(\d+)\.(\d+)\.(\d+)@/.exec(compose.services.caddy.image!)!;
    expect(Number(caddyVersion[1])).toBe(2);
    expect(Number(caddyVersion[2])).toBeGreaterThanOrEqual(10);
    // the built image's base too
    const froms = [...DOCKERFILE.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(froms.length).toBeGreaterThan(0);
    for (const from of froms) expect(from).toMatch(/@sha256:[0-9a-f]{64}$/);
  });

  it('should keep Caddy’s fixed address out of the range compose hands to containers', () => {
    const [config] = compose.networks.svc.ipam!.config;
    const subnet = interpolate(config.subnet);
    const range = interpolate(config.ip_range ?? '');
    const gateway = interpolate(config.gateway ?? '');
    expect(range).toMatch(/^\d+\.\d+\.\d+\.\d+\/\d+$/);
    const caddyNet = compose.services.caddy.networks as Record<string, { ipv4_address?: string }>;
    const proxy = interpolate(caddyNet.svc.ipv4_address!);
    expect(inCidr(proxy, subnet)).toBe(true);
    expect(inCidr(proxy, range)).toBe(false);
    expect(inCidr(range.split('/')[0], subnet)).toBe(true);
    expect(proxy).not.toBe(gateway);
    expect(inCidr(gateway, range)).toBe(false);
    // the daemons trust that address and nothing else
    expect(interpolate(compose.services.daemon.environment!.SVC_API_TRUSTED_PROXIES)).toBe(proxy);
    // an operator moving the network moves both together
    const moved = { SVC_SUBNET: '10.9.0.0/24', SVC_DYNAMIC_RANGE: '10.9.0.128/25', SVC_PROXY_IP: '10.9.0.2' };
    expect(inCidr(interpolate(caddyNet.svc.ipv4_address!, moved), interpolate(config.ip_range!, moved))).toBe(false);
  });

  it('should run a backup service: svc backup on a schedule into its own volume, verified, with retention', () => {
    const { backup, daemon } = compose.services;
    expect(backup).toBeDefined();
    // the daemons' own image, so the backup always knows their migrations
    expect(backup.build).toEqual(daemon.build);
    expect(backup.image).toBe(daemon.image);
    expect(backup.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    const [volume, target] = backup.volumes![0].split(':');
    expect(Object.keys(compose.volumes)).toContain(volume);
    expect(target).toBe('/var/backups/svc');
    expect(DOCKERFILE).toMatch(/chown node:node [^\n]*\/var\/backups\/svc/);
    // the image runs the daemon with the flags `svc daemon` and `svc up` give it (ADR 0093)
    const cmd = /^CMD (\[.*\])$/m.exec(DOCKERFILE)?.[1];
    expect(JSON.parse(cmd ?? 'null')).toEqual(['node', ...DAEMON_NODE_FLAGS, 'dist/apps/daemon/src/main.js']);
    const script = interpolate((backup.command as string[]).join('\n'));
    expect(script).toMatch(/node bin\/svc\.js backup "\$file"/);
    expect(script).toMatch(/node bin\/svc\.js restore --verify "\$file"/);
    expect(script).toMatch(/tail -n \+\$\(\(SVC_BACKUP_KEEP \+ 1\)\)/);
    expect(script).toMatch(/sleep "\$SVC_BACKUP_INTERVAL_SECONDS"/);
    expect(interpolate(backup.environment!.SVC_BACKUP_KEEP)).toBe('14');
    expect(interpolate(backup.environment!.SVC_BACKUP_INTERVAL_SECONDS)).toBe('86400');
    expect(JSON.stringify(backup.healthcheck!.test)).toContain('.last-verified');
    // the backups never leave the compose network by a port
    expect((backup as { ports?: unknown }).ports).toBeUndefined();
  });

  it('should log JSON lines from every replica', () => {
    expect(compose.services.daemon.environment!.SVC_LOG_FORMAT).toBe('json');
  });
});

describe('packaging/systemd/svc.service (the package install)', () => {
  const unit = readFileSync(join(REPO_ROOT, 'packaging', 'systemd', 'svc.service'), 'utf8');
  const keys = (name: string) => [...unit.matchAll(new RegExp(`^${name}=(.*)$`, 'gm'))].map((m) => m[1]);

  it('should run `svc daemon` as the svc user from an environment file, restarted on failure, hardened', () => {
    expect(keys('User')).toEqual(['svc']);
    expect(keys('EnvironmentFile')).toEqual(['/etc/svc/svc.env']);
    expect(keys('ExecStart')[0]).toMatch(/\/svc daemon$/);
    expect(keys('Restart')).toEqual(['on-failure']);
    expect(keys('RestartPreventExitStatus')).toEqual(['75 78']);
    expect(keys('StateDirectory')).toEqual(['svc']);
    for (const [key, value] of [
      ['NoNewPrivileges', 'yes'],
      ['ProtectSystem', 'strict'],
      ['ProtectHome', 'yes'],
      ['PrivateTmp', 'yes'],
      ['CapabilityBoundingSet', ''],
    ]) {
      expect(`${key}=${keys(key).join(',')}`).toBe(`${key}=${value}`);
    }
    // Node's JIT writes code: this option would stop the daemon at start
    expect(keys('MemoryDenyWriteExecute')).toEqual([]);
  });

  const verify = spawnSync('systemd-analyze', ['--version'], { stdio: 'ignore' }).status === 0 ? it : it.skip;
  verify('should pass systemd-analyze verify', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-unit-'));
    const svc = join(dir, 'svc');
    writeFileSync(svc, '#!/bin/sh\n');
    chmodSync(svc, 0o755);
    const copy = join(dir, 'svc.service');
    writeFileSync(copy, unit.replace(/^ExecStart=\S+/m, `ExecStart=${svc}`));
    const run = spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8' });
    expect(`${run.status} ${run.stderr}`.trim()).toBe('0');
  });
});
