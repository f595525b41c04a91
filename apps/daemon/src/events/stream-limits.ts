import type { DomainError } from '../common/domain-error';
import { streamLimitReached } from './events.errors';

export type LimitRefusal = (who: 'actor' | 'address', limit: number, retryAfterSeconds: number) => DomainError;

// How long a refused client should wait: streams end when their clients go, so a slot frees up within seconds.
export const STREAM_LIMIT_RETRY_AFTER_SECONDS = 30;

// Per process (a stream lives on one; N replicas allow N times the caps); also the MCP server's caps.
export class StreamLimits {
  private readonly byActor = new Map<number, number>();
  private readonly byAddress = new Map<string, number>();

  constructor(
    private readonly perActor: number,
    private readonly perAddress: number,
    private readonly refuse: LimitRefusal = streamLimitReached,
  ) {}

  acquire(actorId: number, address: string): () => void {
    if ((this.byActor.get(actorId) ?? 0) >= this.perActor) {
      throw this.refuse('actor', this.perActor, STREAM_LIMIT_RETRY_AFTER_SECONDS);
    }
    if ((this.byAddress.get(address) ?? 0) >= this.perAddress) {
      throw this.refuse('address', this.perAddress, STREAM_LIMIT_RETRY_AFTER_SECONDS);
    }
    this.byActor.set(actorId, (this.byActor.get(actorId) ?? 0) + 1);
    this.byAddress.set(address, (this.byAddress.get(address) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      decrement(this.byActor, actorId);
      decrement(this.byAddress, address);
    };
  }
}

function decrement<K>(map: Map<K, number>, key: K): void {
  const n = (map.get(key) ?? 1) - 1;
  if (n <= 0) map.delete(key);
  else map.set(key, n);
}
