import type { FrontierDeltaWire, FrontierItemWire, FrontierResultWire } from '@app/contracts';

import type { FrontierRead, FrontierSinceRead } from './api';
import { FrontierChange, FrontierMirror, FrontierSource } from './frontier-mirror';

const item = (n: number, title = `Item ${n}`): FrontierItemWire => ({
  item_id: `ATL-${n}`,
  title,
  status: 'planned',
  priority: 'medium',
  project: 'atl',
  workflow_id: 'issue',
  workflow_version_id: 1,
  adapter: 'conduct',
  blocked_by: [],
  blocked_reasons: [],
  unblocks_count: 0,
  downstream_depth: 0,
  created_at: '2026-11-25T00:00:00.000',
});
const answer = (runnable: FrontierItemWire[]): FrontierResultWire => ({
  runnable,
  blocked: [],
  frozen: [],
  wip_cap: 3,
  wip_active: 0,
  conduct_eligible: [],
});
const none = { drop: [], put: [] as [number, FrontierItemWire][] };

// A daemon whose answer the test sets; it knows every ETag it served and answers deltas from them.
class FakeDaemon implements FrontierSource {
  version = 1;
  requests: string[] = [];
  gate: Promise<void> = Promise.resolve();
  forget = false;

  current(): FrontierResultWire {
    return answer([item(1, `Item 1 v${this.version}`), item(2)]);
  }

  async frontier(): Promise<FrontierRead> {
    this.requests.push('full');
    await this.gate;
    return { notModified: false, body: this.current(), etag: `"v${this.version}"` };
  }

  async frontierSince(_q: unknown, since: string): Promise<FrontierSinceRead> {
    this.requests.push(`since ${since}`);
    await this.gate;
    const etag = `"v${this.version}"`;
    if (since === etag) return { kind: 'not_modified' };
    if (this.forget) return { kind: 'full', body: this.current(), etag, reason: 'unknown_base' };
    const delta: FrontierDeltaWire = {
      base: since,
      etag,
      wip_cap: 3,
      wip_active: 0,
      runnable: { drop: [0], put: [[0, this.current().runnable[0]]] },
      blocked: none,
      frozen: none,
      conduct_eligible: none,
    };
    return { kind: 'delta', delta, etag };
  }
}

describe(FrontierMirror.name, () => {
  it('should apply deltas, keep unchanged items as they were, and skip a notice of the ETag it holds', async () => {
    const daemon = new FakeDaemon();
    const changes: FrontierChange[] = [];
    const mirror = new FrontierMirror(daemon, { project: 'atl' }, (c) => changes.push(c));
    await mirror.sync();
    const second = mirror.answer!.runnable[1];
    daemon.version = 2;
    await mirror.notice('"v2"');
    expect(mirror.etag).toBe('"v2"');
    expect(mirror.answer).toEqual(daemon.current());
    expect(mirror.answer!.runnable[1]).toBe(second);
    await mirror.notice('"v2"');
    expect(daemon.requests).toEqual(['full', 'since "v1"']);
    expect(changes.map((c) => c.kind)).toEqual(['full', 'delta']);
    expect(mirror.stats).toMatchObject({ full: 1, deltas: 1, skipped: 1, fallbacks: 0 });
  });

  it('should coalesce notices arriving during a request into one more request', async () => {
    const daemon = new FakeDaemon();
    const mirror = new FrontierMirror(daemon, { project: 'atl' });
    await mirror.sync();
    let open!: () => void;
    daemon.gate = new Promise((resolve) => (open = resolve));
    daemon.version = 2;
    const first = mirror.notice('"v2"');
    daemon.version = 3;
    void mirror.notice('"v3"');
    void mirror.notice(null);
    void mirror.notice('"v3"');
    open();
    await first;
    expect(daemon.requests).toEqual(['full', 'since "v1"', 'since "v3"']);
    expect(mirror.etag).toBe('"v3"');
  });

  it('should take the full answer when the daemon does not know the base, and count it', async () => {
    const daemon = new FakeDaemon();
    const mirror = new FrontierMirror(daemon, { project: 'atl' });
    await mirror.sync();
    daemon.version = 5;
    daemon.forget = true;
    await mirror.notice(null);
    expect(mirror.answer).toEqual(daemon.current());
    expect(mirror.stats.fallbacks).toBe(1);
  });
});
