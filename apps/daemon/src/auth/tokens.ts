import { createHash, randomBytes } from 'node:crypto';

export const API_TOKEN_PREFIX = 'svc_';
export const MACHINE_CREDENTIAL_PREFIX = 'svcm_';

// 256 bits of randomness; only the SHA-256 digest is stored, lookups are by digest.
export function generateToken(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

// What a listing may show of a token: enough to tell two apart, useless to an attacker.
export function tokenDisplayPrefix(token: string): string {
  return `${token.slice(0, token.indexOf('_') + 5)}…`;
}
