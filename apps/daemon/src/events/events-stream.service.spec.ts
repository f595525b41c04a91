import { EventEmitter } from 'node:events';

import type { Client } from 'pg';
import type { DataSource } from 'typeorm';

import { ITEMS_CHANNEL } from './events.repository';
import { EventsStreamService, StreamMessage } from './events-stream.service';
import { NoticeFeedRepository } from './notice-feed.repository';

// The notice feed's reader over a fake connection whose feed reads the test answers one by one.

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: Error): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

class FakeListenClient extends EventEmitter {
  // each feed read the service made, answered when the test says
  readonly polls: Deferred<{ rows: unknown[] }>[] = [];
  // the test is over: every read answers at once, with nothing
  draining = false;

  connect(): Promise<void> {
    return Promise.resolve();
  }

  end(): Promise<void> {
    return Promise.resolve();
  }

  query(sql: string): Promise<{ rows: unknown[] }> {
    if (sql.startsWith('LISTEN')) return Promise.resolve({ rows: [] });
    // the first read: from the present on
    if (sql.includes('AS highest')) return Promise.resolve({ rows: [{ horizon: '100', highest: '5' }] });
    if (this.draining) return Promise.resolve({ rows: [] });
    const poll = deferred<{ rows: unknown[] }>();
    this.polls.push(poll);
    return poll.promise;
  }
}

async function until(what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

describe('EventsStreamService (the notice feed reader)', () => {
  let client: FakeListenClient;
  let service: EventsStreamService;
  const delivered: StreamMessage[] = [];

  beforeEach(async () => {
    delivered.length = 0;
    client = new FakeListenClient();
    service = new EventsStreamService({} as DataSource, () => client as unknown as Client, new NoticeFeedRepository());
    service.messages.subscribe((m) => delivered.push(m));
    await service.onModuleInit();
  });

  afterEach(async () => {
    client.draining = true;
    for (const poll of client.polls) poll.resolve({ rows: [] });
    await service.onModuleDestroy();
  });

  it('should read the feed again after a read failed while another was queued behind it', async () => {
    await until('the first feed read', () => client.polls.length === 1);
    // a write answered meanwhile: one more read is queued behind the one in flight
    service.kick();
    // the connection dies under the read in flight
    client.polls[0].reject(new Error('Connection terminated unexpectedly'));
    await until('the queued read', () => client.polls.length === 2);
    client.polls[1].resolve({
      rows: [
        {
          horizon: '101',
          id: '6',
          channel: ITEMS_CHANNEL,
          payload: JSON.stringify({ type: 'item', project: 'shop', item_id: 'SHOP-1' }),
          xid: '100',
          safe: true,
        },
      ],
    });
    await until('the notice delivered', () => delivered.length === 1);
    expect(delivered[0]).toMatchObject({ channel: ITEMS_CHANNEL, project: 'shop' });
    // and the feed goes on being read
    await until('a later read', () => client.polls.length >= 3);
  });
});
