import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

import { REPO_ROOT } from '@app/testing';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const CLIENT_ID = 'svc-e2e';
export const CLIENT_SECRET = 'svc-e2e-client-secret-0123456789';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

// oidc-provider is ESM-only: it runs in its own process (test/support/oidc-provider.mjs). allowCodeReuse makes it a
// lax provider that redeems one authorization code any number of times.
export function startProvider(
  redirectUri: string,
  accounts: Record<string, unknown>,
  options: { allowCodeReuse?: boolean } = {},
): Promise<{ issuer: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'test', 'support', 'oidc-provider.mjs')], {
    env: {
      PATH: process.env.PATH,
      OIDC_CLIENT_ID: CLIENT_ID,
      OIDC_CLIENT_SECRET: CLIENT_SECRET,
      OIDC_REDIRECT_URI: redirectUri,
      OIDC_ACCOUNTS: JSON.stringify(accounts),
      ...(options.allowCodeReuse ? { OIDC_ALLOW_CODE_REUSE: '1' } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the OpenID provider did not start:\n${out}\n${err}`)), 30000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const match = /^issuer (\S+)$/m.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ issuer: match[1], child });
      }
    });
    child.once('exit', (code) => reject(new Error(`the OpenID provider exited (${code}):\n${err}`)));
  });
}
