import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SERVER_SECRET_FILE = 'server-secret';

// SVC_SERVER_SECRET when set (replicas must share it); else one generated on first boot and kept in SVC_HOME with
// mode 0600, never in the database whose rows it protects.
export function loadServerSecret(configured: string | null, home: string): Buffer {
  if (configured) return Buffer.from(configured, 'utf8');
  const path = join(home, SERVER_SECRET_FILE);
  try {
    return Buffer.from(readFileSync(path, 'utf8').trim(), 'utf8');
  } catch {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    try {
      writeFileSync(path, `${randomBytes(48).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    return Buffer.from(readFileSync(path, 'utf8').trim(), 'utf8');
  }
}
