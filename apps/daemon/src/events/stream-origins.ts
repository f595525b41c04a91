import { randomBytes } from 'node:crypto';

export const STREAM_ORIGIN_HEADER = 'x-svc-stream-origin';

// The daemon's own loopback streams for MCP over HTTP would all share loopback's budget; it vouches instead for the
// client's address with a random in-memory secret bound to the actor, valid until the MCP connection ends. Any other
// value (forged, expired, another actor's) is ignored.
export class StreamOrigins {
  private readonly vouched = new Map<string, { actorId: number; addressKey: string }>();

  vouch(actorId: number, addressKey: string): { secret: string; revoke: () => void } {
    const secret = randomBytes(32).toString('base64url');
    this.vouched.set(secret, { actorId, addressKey });
    return { secret, revoke: () => this.vouched.delete(secret) };
  }

  addressOf(secret: string | string[] | undefined, actorId: number): string | null {
    const value = Array.isArray(secret) ? secret[0] : secret;
    if (!value) return null;
    const entry = this.vouched.get(value);
    return entry && entry.actorId === actorId ? entry.addressKey : null;
  }

  get size(): number {
    return this.vouched.size;
  }
}
