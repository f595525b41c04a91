import {
  canonicalUserCode,
  deviceCodeDigest,
  generateDeviceCode,
  generateUserCode,
  USER_CODE_ALPHABET,
  userCodeDigest,
} from './user-code';

describe('user codes', () => {
  it('should generate XXXX-XXXX from the base-20 alphabet', () => {
    for (let i = 0; i < 200; i += 1) {
      const code = generateUserCode();
      expect(code).toMatch(new RegExp(`^[${USER_CODE_ALPHABET}]{4}-[${USER_CODE_ALPHABET}]{4}$`));
    }
  });

  it('should accept any case with or without the dash', () => {
    expect(canonicalUserCode('bcdf-ghjk')).toBe('BCDF-GHJK');
    expect(canonicalUserCode('BcDfGhJk')).toBe('BCDF-GHJK');
    expect(canonicalUserCode('  BCDF-GHJK ')).toBe('BCDF-GHJK');
  });

  it('should refuse vowels, digits, wrong lengths and non-strings', () => {
    expect(canonicalUserCode('ABCD-EFGH')).toBeNull();
    expect(canonicalUserCode('BCDF-GHJ1')).toBeNull();
    expect(canonicalUserCode('BCDF-GHJ')).toBeNull();
    expect(canonicalUserCode('BCDF--GHJK')).toBeNull();
    expect(canonicalUserCode(42)).toBeNull();
    expect(canonicalUserCode('x'.repeat(100))).toBeNull();
  });

  it('should digest both spellings of one code alike and depend on the secret', () => {
    const secret = Buffer.from('a'.repeat(32));
    const a = userCodeDigest(secret, canonicalUserCode('bcdfghjk')!);
    const b = userCodeDigest(secret, canonicalUserCode('BCDF-GHJK')!);
    expect(a.equals(b)).toBe(true);
    expect(a.equals(userCodeDigest(Buffer.from('b'.repeat(32)), 'BCDF-GHJK'))).toBe(false);
  });
});

describe('device codes', () => {
  it('should carry at least 128 bits and be URL-safe', () => {
    const code = generateDeviceCode();
    expect(Buffer.from(code, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
    expect(code).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(deviceCodeDigest(code)).toHaveLength(32);
    expect(generateDeviceCode()).not.toBe(code);
  });
});
