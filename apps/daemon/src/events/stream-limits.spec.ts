import { DomainError } from '../common/domain-error';
import { StreamLimits } from './stream-limits';

describe('StreamLimits', () => {
  const refusal = (work: () => unknown): DomainError => {
    try {
      work();
    } catch (err) {
      return err as DomainError;
    }
    throw new Error('not refused');
  };

  it('should refuse the stream over the per-actor cap with 429 and Retry-After, and free a slot on release', () => {
    const limits = new StreamLimits(2, 10);
    const first = limits.acquire(1, 'a');
    limits.acquire(1, 'b');
    const err = refusal(() => limits.acquire(1, 'c'));
    expect(err).toMatchObject({ code: 'event_stream_limit_reached', status: 429, extra: { limit: 2 } });
    expect(Number(err.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(() => limits.acquire(2, 'c')).not.toThrow();
    first();
    first();
    expect(() => limits.acquire(1, 'c')).not.toThrow();
    expect(refusal(() => limits.acquire(1, 'd')).code).toBe('event_stream_limit_reached');
  });

  it('should refuse the stream over the per-address cap whoever opens it', () => {
    const limits = new StreamLimits(10, 2);
    limits.acquire(1, 'a');
    limits.acquire(2, 'a');
    expect(refusal(() => limits.acquire(3, 'a')).status).toBe(429);
    expect(() => limits.acquire(3, 'b')).not.toThrow();
  });
});
