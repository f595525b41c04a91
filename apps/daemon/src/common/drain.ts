import type { ServerResponse } from 'node:http';

import type { FastifyInstance } from 'fastify';

import { shuttingDown } from './domain-error';
import { toErrorResponse, writeErrorResponse } from './response-writer';

// SIGTERM drains in phases so a balancer sends nothing the replica cannot finish (docs/adr/0066): draining answers
// health probes 503 and the rest with `Connection: close`; closing, once the balancer stopped sending (or
// SVC_DRAIN_SECONDS passed), refuses new requests 503 shutting_down and lets those in flight finish.
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

  probed(): void {
    if (this.phase !== 'serving') this.probedAt = Date.now();
  }

  livez(): void {
    this.livezAt = Date.now();
  }

  // At once when no balancer asked /livez in the last minute: nobody to wait for.
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

  // Streams are left out: they end when their modules shut down.
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

export const drain = new Drain();

// Register before the routes.
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
