import { randomBytes } from 'node:crypto';

// The header an event stream the daemon opens to itself carries (see StreamOrigins).
export const STREAM_ORIGIN_HEADER = 'x-svc-stream-origin';

// Event streams the daemon opens to itself on a client's behalf: an MCP-over-HTTP connection that subscribes to a
// resource follows GET /v1/events/stream over loopback with the caller's own token. Counted by the transport
// address, every such stream of a replica would share the loopback address's budget, so the 33rd MCP user of a
// replica would be refused whoever they are. The daemon vouches instead for the address the client's /mcp request
// came from: a random secret, kept only in this process's memory, never sent to a client, bound to the actor, valid
// until the MCP connection ends. A stream presenting a secret this process issued to its actor counts against that
// address; any other value (forged, expired, another actor's) is ignored and the stream counts as usual.
export class StreamOrigins {
  private readonly vouched = new Map<string, { actorId: number; addressKey: string }>();

  vouch(actorId: number, addressKey: string): { secret: string; revoke: () => void } {
    const secret = randomBytes(32).toString('base64url');
    this.vouched.set(secret, { actorId, addressKey });
    return { secret, revoke: () => this.vouched.delete(secret) };
  }

  // The vouched address key, or null when the secret is not one this process issued to this actor.
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
