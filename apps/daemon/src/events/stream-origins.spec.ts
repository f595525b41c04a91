import { StreamOrigins } from './stream-origins';

describe('StreamOrigins', () => {
  it('should answer the vouched address only for the secret it issued, to the actor it issued it to', () => {
    const origins = new StreamOrigins();
    const { secret, revoke } = origins.vouch(7, '203.0.113.9');
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(origins.addressOf(secret, 7)).toBe('203.0.113.9');
    expect(origins.addressOf([secret], 7)).toBe('203.0.113.9');
    // another actor presenting it, a forged value, nothing: the stream counts by its transport address
    expect(origins.addressOf(secret, 8)).toBeNull();
    expect(origins.addressOf('203.0.113.9', 7)).toBeNull();
    expect(origins.addressOf(undefined, 7)).toBeNull();
    revoke();
    expect(origins.addressOf(secret, 7)).toBeNull();
    expect(origins.size).toBe(0);
  });
});
