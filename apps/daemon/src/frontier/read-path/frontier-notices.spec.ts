import { Observable, Subject } from 'rxjs';

import type { EventsStreamService, StreamMessage } from '../../events/events-stream.service';
import { FrontierNotices, InFlightCoalescer } from './frontier-notices';
import type { FrontierRepository } from './frontier.repository';
import type { FrontierService } from './frontier.service';

// The frontier notices over fakes: which changes are computed, how a burst is coalesced, what is published.

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const settle = async () => {
  for (let i = 0; i < 5; i++) await turn();
};
// for what follows a paced run's pause (a real timer of a few milliseconds)
const until = async (done: () => boolean) => {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
};

const item = (project: string | null): StreamMessage => ({
  channel: 'svc_items',
  type: 'item',
  id: null,
  project,
  name: null,
  data: { type: 'item', project },
});

class FakeStream {
  readonly subject = new Subject<StreamMessage>();
  readonly followers = new Set<string>();
  readonly published: StreamMessage[] = [];
  get messages(): Observable<StreamMessage> {
    return this.subject.asObservable();
  }
  followed(project: string): boolean {
    return this.followers.has(project);
  }
  publish(m: StreamMessage): void {
    this.published.push(m);
    this.subject.next(m);
  }
}

// frontierBody answers when the test opens the gate; counts calls and the largest number in flight at once
class FakeFrontier {
  calls: { project: string; wipCap: number; record: boolean | undefined }[] = [];
  inFlight = 0;
  maxInFlight = 0;
  version = 1;
  private gates: (() => void)[] = [];
  blocking = false;
  fail = false;

  frontierBody(project: { id: string }, wipCap: number, _actor: number | null, record?: boolean) {
    this.calls.push({ project: project.id, wipCap, record });
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    const answer = () => {
      this.inFlight--;
      if (this.fail) throw new Error('database unavailable');
      return { etag: `"${project.id}-v${this.version}"`, chunks: [], length: 0 };
    };
    if (!this.blocking) return Promise.resolve().then(answer);
    return new Promise<void>((resolve) => this.gates.push(resolve)).then(answer);
  }

  open(): void {
    const gates = this.gates;
    this.gates = [];
    gates.forEach((g) => g());
  }
}

function setup() {
  const stream = new FakeStream();
  const frontier = new FakeFrontier();
  const repository = {
    findProject: jest.fn((id: string) =>
      Promise.resolve(id === 'gone' ? null : { id, name: id, public_item_prefix: 'X', policy: { wip_cap: 3 } }),
    ),
  };
  const notices = new FrontierNotices(
    stream as unknown as EventsStreamService,
    frontier as unknown as FrontierService,
    repository as unknown as FrontierRepository,
  );
  notices.onModuleInit();
  const frontierNotices = () => stream.published.filter((m) => m.type === 'frontier').map((m) => m.data);
  return { stream, frontier, repository, notices, frontierNotices };
}

describe(InFlightCoalescer.name, () => {
  it('should run a burst once, then exactly once more for the touches made while it ran', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const runs: string[] = [];
    const gates: (() => void)[] = [];
    const coalescer = new InFlightCoalescer(
      async (key) => {
        runs.push(key);
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise<void>((resolve) => gates.push(resolve));
        inFlight--;
      },
      () => true,
    );
    for (let i = 0; i < 20; i++) coalescer.touch('a');
    await settle();
    expect(runs).toEqual(['a']);
    for (let i = 0; i < 20; i++) coalescer.touch('a');
    coalescer.touch('b');
    await settle();
    expect(runs).toEqual(['a', 'b']);
    gates.shift()!();
    await settle();
    expect(runs).toEqual(['a', 'b', 'a']);
    gates.splice(0).forEach((g) => g());
    await settle();
    gates.splice(0).forEach((g) => g());
    await settle();
    expect(runs).toEqual(['a', 'b', 'a']);
    expect(maxInFlight).toBe(2);
    expect(coalescer.pending).toBe(0);
  });

  it('should drop a key nobody wants any more, and run again after a failed run', async () => {
    let wanted = true;
    const runs: string[] = [];
    const coalescer = new InFlightCoalescer(
      (key) => {
        runs.push(key);
        wanted = false;
        return Promise.reject(new Error('boom'));
      },
      () => wanted,
    );
    coalescer.touch('a');
    await settle();
    coalescer.touch('a');
    await settle();
    expect(runs).toEqual(['a']);
    wanted = true;
    coalescer.touch('a');
    await settle();
    expect(runs).toEqual(['a', 'a']);
    expect(coalescer.pending).toBe(0);
  });
});

describe(`${InFlightCoalescer.name} paced`, () => {
  it('should wait ratio times as long as a run took, at most maxMs, only when the key was touched during the run', async () => {
    let clock = 0;
    const waits: number[] = [];
    const runs: string[] = [];
    let took = 10;
    let touchDuring = true;
    const coalescer: InFlightCoalescer = new InFlightCoalescer(
      (key) => {
        runs.push(key);
        clock += took;
        if (touchDuring) coalescer.touch(key);
        touchDuring = false;
        return Promise.resolve();
      },
      () => true,
      { ratio: 2, maxMs: 50 },
      (start) => setImmediate(start),
      (ms) => {
        waits.push(ms);
        return Promise.resolve();
      },
      () => clock,
    );
    coalescer.touch('a');
    await settle();
    // the run that was touched while it ran waited twice its 10 ms; the one after it, untouched, did not wait
    expect(runs).toEqual(['a', 'a']);
    expect(waits).toEqual([20]);
    took = 40;
    touchDuring = true;
    coalescer.touch('a');
    await settle();
    expect(runs).toEqual(['a', 'a', 'a', 'a']);
    expect(waits).toEqual([20, 50]);
    expect(coalescer.pending).toBe(0);
  });
});

describe(FrontierNotices.name, () => {
  it('should compute a burst of changes once in flight and once after, and publish each ETag', async () => {
    const { stream, frontier, frontierNotices } = setup();
    stream.followers.add('atl');
    frontier.blocking = true;
    for (let i = 0; i < 30; i++) stream.subject.next(item('atl'));
    await settle();
    expect(frontier.calls).toHaveLength(1);
    // the default answer (the project's own cap), computed for no caller: no FrontierComputed row
    expect(frontier.calls[0]).toEqual({ project: 'atl', wipCap: 3, record: false });
    for (let i = 0; i < 30; i++) stream.subject.next(item('atl'));
    frontier.open();
    await until(() => frontier.calls.length === 2);
    expect(frontier.calls).toHaveLength(2);
    expect(frontierNotices()).toEqual([{ project: 'atl', etag: '"atl-v1"' }]);
    frontier.version = 2;
    frontier.open();
    await settle();
    expect(frontier.calls).toHaveLength(2);
    expect(frontier.maxInFlight).toBe(1);
    expect(frontierNotices()).toEqual([
      { project: 'atl', etag: '"atl-v1"' },
      { project: 'atl', etag: '"atl-v2"' },
    ]);
  });

  it('should compute nothing for a project no stream follows, nor for its own notices and FrontierComputed', async () => {
    const { stream, frontier, repository } = setup();
    stream.followers.add('atl');
    stream.subject.next(item('other'));
    stream.subject.next(item(null));
    stream.subject.next({ ...item('atl'), channel: 'svc_events', type: 'event', name: 'FrontierComputed' });
    stream.subject.next({ ...item('atl'), channel: 'frontier', type: 'frontier' });
    stream.subject.next({ ...item('atl'), type: 'machine_authorization' });
    await settle();
    expect(frontier.calls).toEqual([]);
    expect(repository.findProject).not.toHaveBeenCalled();
    // one change, one notice; the notice itself triggers nothing more
    stream.subject.next(item('atl'));
    await settle();
    expect(frontier.calls).toHaveLength(1);
    expect(stream.published).toHaveLength(1);
  });

  it('should announce an unknown ETag when the computation fails, and nothing for a deleted project', async () => {
    const { stream, frontier, frontierNotices } = setup();
    stream.followers.add('atl');
    stream.followers.add('gone');
    frontier.fail = true;
    stream.subject.next(item('atl'));
    stream.subject.next(item('gone'));
    await settle();
    expect(frontierNotices()).toEqual([{ project: 'atl', etag: null }]);
  });

  it('should stop announcing once the module is destroyed', async () => {
    const { stream, frontier, notices } = setup();
    stream.followers.add('atl');
    notices.onModuleDestroy();
    stream.subject.next(item('atl'));
    await settle();
    expect(frontier.calls).toEqual([]);
  });
});
