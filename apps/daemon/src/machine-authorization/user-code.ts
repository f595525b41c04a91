import { createHash, createHmac, randomBytes, randomInt } from 'node:crypto';

import { normalizeUserCode } from '@app/contracts';

// RFC 8628 §6.1: twenty consonants, no vowels (no words) and no look-alike digits.
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const USER_CODE_LENGTH = 8;
export const DEVICE_CODE_BYTES = 32;

export function generateUserCode(): string {
  let letters = '';
  for (let i = 0; i < USER_CODE_LENGTH; i += 1) letters += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return `${letters.slice(0, 4)}-${letters.slice(4)}`;
}

// What a person typed (any case, dash optional) → XXXX-XXXX, or null when it cannot be a user code.
export function canonicalUserCode(input: unknown): string | null {
  if (typeof input !== 'string' || input.length > 16) return null;
  return normalizeUserCode(input);
}

// Keyed so that a copy of the table cannot be brute-forced offline over the small user-code space.
export function userCodeDigest(secret: Buffer, canonical: string): Buffer {
  return createHmac('sha256', secret)
    .update(`user_code:${canonical.replace('-', '')}`, 'utf8')
    .digest();
}

export function generateDeviceCode(): string {
  return randomBytes(DEVICE_CODE_BYTES).toString('base64url');
}

export function deviceCodeDigest(deviceCode: string): Buffer {
  return createHash('sha256').update(deviceCode, 'utf8').digest();
}
