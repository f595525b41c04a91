import type { ServerResponse } from 'node:http';

import type { FastifyInstance } from 'fastify';

import { shuttingDown } from './domain-error';
import { toErrorResponse, writeErrorResponse } from './response-writer';

// A replica that is told to stop (SIGTERM) drains in three phases, so a balancer in front of it (docker/Caddyfile)
// sends nothing it cannot finish (docs/adr/0066):
//   serving   → normal.
//   draining  → /livez and /readyz answer 503 shutting_down (the balancer's health check takes the replica out);
//               every other request is still served, with `Connection: close`, so no idle keep-alive connection is
//               left for the balancer to reuse at the moment the replica closes it.
//   closing   → once the balancer has seen the 503 and sent nothing for a moment (or SVC_DRAIN_SECONDS passed): a new
//               request is answered 503 shutting_down with Retry-After (JSON, never Fastify's default body); the
//               requests in flight finish; then the server, the streams and the pool close.
export type DrainPhase = 'serving' | 'draining' | 'closing';

export const SHUTTING_DOWN_RETRY_AFTER_SECONDS = 1;
// Quiet for this long after a health probe saw the 503: the balancer has taken the replica out.
const QUIET_MS = 500;
// A balancer watches this replica when it asked /livez this recently; else there is nobody to wait for.
const WATCHED_WITHIN_MS = 60_000;
const HEALTH_PATHS = new Set(['/livez', '/readyz', '/healthz']);

class Drain {
  phase: DrainPhase = 'serving';
  private startedAt = 0;
  private probedAt = 0;
  private lastRequestAt = 0;
  private livezAt = 0;
  private readonly inFlight = new Set<ServerResponse>();

  // A daemon started again in the same process (svc self-host) serves from the start.
  reset(): void {
    this.phase = 'serving';
    this.startedAt = 0;
    this.probedAt = 0;
    this.livezAt = 0;
    this.inFlight.clear();
  }

  begin(): void {
    if (this.phase !== 'serving') return;
    this.phase = 'draining';
    this.startedAt = Date.now();
    this.lastRequestAt = this.startedAt;
  }

  // A health probe answered 503 while draining.
  probed(): void {
    if (this.phase !== 'serving') this.probedAt = Date.now();
  }

  // A balancer's check of /livez (docker/Caddyfile's health_uri).
  livez(): void {
    this.livezAt = Date.now();
  }

  // Waits until the balancer has seen the 503 and the traffic stopped, at most `maxMs`; at once when no balancer
  // asked /livez in the last minute (a daemon nobody balances over, a test).
  async settle(maxMs: number): Promise<void> {
    const watched = this.livezAt > 0 && this.startedAt - this.livezAt < WATCHED_WITHIN_MS;
    const deadline = this.startedAt + (watched ? maxMs : 0);
    for (;;) {
      const now = Date.now();
      if (now >= deadline) break;
      if (this.probedAt > 0 && now - this.probedAt >= QUIET_MS && now - this.lastRequestAt >= QUIET_MS) break;
      await sleep(50);
    }
    this.phase = 'closing';
  }

  // Waits until every request in flight has answered, but for streams (their headers sent as text/event-stream):
  // those end when their modules shut down. At most `maxMs`.
  async finishInFlight(maxMs: number): Promise<void> {
    const deadline = Date.now() + maxMs;
    const busy = () => [...this.inFlight].some((res) => !isStream(res));
    while (busy() && Date.now() < deadline) await sleep(25);
  }

  track(res: ServerResponse, path: string): void {
    if (!HEALTH_PATHS.has(path)) this.lastRequestAt = Date.now();
    this.inFlight.add(res);
    res.once('close', () => this.inFlight.delete(res));
  }
}

function isStream(res: ServerResponse): boolean {
  return res.headersSent && /text\/event-stream/i.test(String(res.getHeader('content-type') ?? ''));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// One per process: the daemon drains as a whole.
export const drain = new Drain();

// Registered before the routes: counts requests in flight, marks answers `Connection: close` while draining and
// refuses new requests once closing.
export function registerDrainHooks(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    const path = request.url.split('?')[0];
    if (drain.phase === 'closing') {
      const refusal = toErrorResponse(shuttingDown(SHUTTING_DOWN_RETRY_AFTER_SECONDS));
      writeErrorResponse(reply, refusal.status, refusal.body, refusal.headers);
      return;
    }
    drain.track(reply.raw, path);
    if (drain.phase === 'draining') void reply.header('connection', 'close');
    done();
  });
}
