import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

import type { StreamNotice } from '@app/contracts';
import { waitFor } from '@app/testing/wait-for';

import {
  backoffDelay,
  EventStreamOptions,
  openEventStream,
  openFollowingEventStream,
  StreamStatus,
  StreamStatusDetail,
} from './event-stream';
import { SvcHttpError } from './http-client';

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void;

// A tiny SSE server whose n-th connection is answered by handlers[n] (the last handler repeats).
async function sseServer(
  handlers: Handler[],
): Promise<{ url: string; seen: IncomingMessage[]; close(): Promise<void> }> {
  const seen: IncomingMessage[] = [];
  const server: Server = createServer((req, res) => {
    const n = seen.length;
    seen.push(req);
    handlers[Math.min(n, handlers.length - 1)](req, res, n);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const open = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream' });

async function until<T>(probe: () => T | undefined | null | false, what: string, timeoutMs = 10_000): Promise<T> {
  return waitFor(probe, { what, timeout: timeoutMs, interval: 10 });
}

describe('openEventStream', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('should parse notices, reconnect after a dropped connection and send Last-Event-ID', async () => {
    const server = await sseServer([
      (_req, res) => {
        open(res);
        res.write(': connected\n\n');
        res.write('id: 41\nevent: event\ndata: {"name":"ItemCreated","item_id":"AL-1"}\n\n');
        res.write('event: item\ndata: {"op":"update","item_id":"AL-1"}\n\n');
        // the daemon goes away mid-stream
        setTimeout(() => res.socket?.destroy(), 20);
      },
      (_req, res) => {
        open(res);
        res.write('id: 42\nevent: event\ndata: {"name":"ChargeDecisionMade"}\n\n');
      },
    ]);
    cleanups.push(server.close);
    const notices: StreamNotice[] = [];
    const statuses: [StreamStatus, StreamStatusDetail | undefined][] = [];
    const stream = openEventStream({
      baseUrl: server.url,
      token: 'tok',
      project: 'alpha',
      onNotice: (n) => notices.push(n),
      onStatus: (s, d) => statuses.push([s, d]),
      initialRetryMs: 20,
      random: () => 0,
    });
    cleanups.push(() => stream.close());

    await until(() => notices.length >= 3, 'three notices');
    expect(notices).toEqual([
      { type: 'event', id: '41', data: { name: 'ItemCreated', item_id: 'AL-1' } },
      { type: 'item', id: null, data: { op: 'update', item_id: 'AL-1' } },
      { type: 'event', id: '42', data: { name: 'ChargeDecisionMade' } },
    ]);
    expect(stream.lastEventId).toBe('42');
    expect(server.seen).toHaveLength(2);
    expect(server.seen[0].headers['last-event-id']).toBeUndefined();
    expect(server.seen[1].headers['last-event-id']).toBe('41');
    expect(server.seen[0].headers.authorization).toBe('Bearer tok');
    expect(server.seen[0].url).toBe('/v1/events/stream?project=alpha');
    expect(statuses.map(([s]) => s)).toEqual(['connecting', 'open', 'reconnecting', 'open']);
    expect(statuses[2][1]).toMatchObject({ attempt: 1, retryInMs: 10 });
  });

  it('should give up on a connection that sends nothing for idleTimeoutMs and connect again', async () => {
    const server = await sseServer([
      (_req, res) => {
        open(res);
        res.write(': connected\n\n');
        // then silence: no heartbeat, no close
      },
      (_req, res) => {
        open(res);
        res.write('id: 5\nevent: event\ndata: {"name":"AfterSilence"}\n\n');
      },
    ]);
    cleanups.push(server.close);
    const notices: StreamNotice[] = [];
    const statuses: StreamStatus[] = [];
    const stream = openEventStream({
      baseUrl: server.url,
      token: null,
      onNotice: (n) => notices.push(n),
      onStatus: (s) => statuses.push(s),
      initialRetryMs: 20,
      idleTimeoutMs: 150,
      random: () => 0,
    });
    cleanups.push(() => stream.close());

    await until(() => notices.length >= 1, 'the notice of the second connection');
    expect(notices[0].data).toEqual({ name: 'AfterSilence' });
    expect(server.seen).toHaveLength(2);
    expect(statuses).toEqual(['connecting', 'open', 'reconnecting', 'open']);
  });

  it('should back off exponentially, capped, while the daemon refuses, then reset once a connection opens', async () => {
    const server = await sseServer([
      (_req, res) => res.writeHead(503).end('{"code":"starting","message":"not ready"}'),
      (_req, res) => res.writeHead(503).end(),
      (_req, res) => res.writeHead(503).end(),
      (_req, res) => res.writeHead(503).end(),
      (_req, res) => {
        open(res);
        res.write('id: 7\nevent: event\ndata: {"name":"Back"}\n\n');
        setTimeout(() => res.socket?.destroy(), 20);
      },
      (_req, res) => open(res),
    ]);
    cleanups.push(server.close);
    const reconnecting: StreamStatusDetail[] = [];
    const stream = openEventStream({
      baseUrl: server.url,
      token: null,
      onNotice: () => undefined,
      onStatus: (s, d) => {
        if (s === 'reconnecting' && d) reconnecting.push(d);
      },
      initialRetryMs: 20,
      maxRetryMs: 80,
      random: () => 0.999,
    });
    cleanups.push(() => stream.close());

    await until(() => server.seen.length >= 6, 'the sixth connection');
    expect(reconnecting.map((d) => d.attempt)).toEqual([1, 2, 3, 4, 1]);
    // base·2^(n-1), capped at 80, with the jitter factor 0.5 + 0.5·0.999
    expect(reconnecting.map((d) => d.retryInMs)).toEqual([20, 40, 80, 80, 20]);
    expect((reconnecting[0].error as SvcHttpError).code).toBe('starting');
    expect(server.seen[5].headers['last-event-id']).toBe('7');
    expect(server.seen[1].headers['last-event-id']).toBeUndefined();
  });

  it('should take the reconnection delay from the server retry field', async () => {
    const server = await sseServer([
      (_req, res) => {
        open(res);
        res.write('retry: 30\n\n');
        setTimeout(() => res.socket?.destroy(), 20);
      },
      (_req, res) => open(res),
    ]);
    cleanups.push(server.close);
    const delays: number[] = [];
    const stream = openEventStream({
      baseUrl: server.url,
      token: null,
      onNotice: () => undefined,
      onStatus: (s, d) => {
        if (s === 'reconnecting') delays.push(d!.retryInMs!);
      },
      initialRetryMs: 5000,
      random: () => 0,
    });
    cleanups.push(() => stream.close());
    await until(() => server.seen.length >= 2, 'the reconnection');
    expect(delays).toEqual([15]);
  });

  it('should stop with the error on 401 instead of retrying', async () => {
    const server = await sseServer([
      (_req, res) =>
        res
          .writeHead(401, { 'content-type': 'application/json' })
          .end('{"code":"credential_revoked","message":"revoked"}'),
    ]);
    cleanups.push(server.close);
    const statuses: [StreamStatus, StreamStatusDetail | undefined][] = [];
    const stream = openEventStream({
      baseUrl: server.url,
      token: 'old',
      onNotice: () => undefined,
      onStatus: (s, d) => statuses.push([s, d]),
      initialRetryMs: 5,
    });
    cleanups.push(() => stream.close());
    const [, detail] = await until(() => statuses.find(([s]) => s === 'closed'), 'closed');
    expect(detail?.error).toBeInstanceOf(SvcHttpError);
    expect((detail?.error as SvcHttpError).code).toBe('credential_revoked');
    await new Promise((r) => setTimeout(r, 50));
    expect(server.seen).toHaveLength(1);
  });

  it('should ask for the frontier notices it names, and go on without them where the daemon refuses the parameter', async () => {
    const server = await sseServer([
      // a daemon older than ?frontier= refuses it as an unknown parameter
      (_req, res) =>
        res.writeHead(400, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            code: 'validation_failed',
            message: 'invalid request',
            fields: [{ field: 'frontier', problems: ['property frontier should not exist'] }],
          }),
        ),
      (_req, res) => {
        open(res);
        res.write('event: item\ndata: {"project":"alpha"}\n\n');
      },
    ]);
    cleanups.push(server.close);
    const notices: StreamNotice[] = [];
    const statuses: StreamStatus[] = [];
    const refused: SvcHttpError[] = [];
    const stream = openEventStream({
      baseUrl: server.url,
      token: null,
      frontier: ['alpha', 'beta'],
      onFrontierRefused: (error) => refused.push(error),
      onNotice: (n) => notices.push(n),
      onStatus: (s) => statuses.push(s),
      initialRetryMs: 10_000,
    });
    cleanups.push(() => stream.close());
    await until(() => notices.length >= 1, 'the notice after the refusal');
    expect(server.seen.map((r) => r.url)).toEqual(['/v1/events/stream?frontier=alpha%2Cbeta', '/v1/events/stream']);
    // at once, not after a backoff
    expect(statuses).toEqual(['connecting', 'open']);
    expect(refused.map((e) => e.body.fields)).toEqual([
      [{ field: 'frontier', problems: ['property frontier should not exist'] }],
    ]);
  });

  it('should stop reconnecting once closed', async () => {
    const server = await sseServer([(_req, res) => res.writeHead(503).end()]);
    cleanups.push(server.close);
    const statuses: StreamStatus[] = [];
    const stream = openEventStream({
      baseUrl: server.url,
      token: null,
      onNotice: () => undefined,
      onStatus: (s) => statuses.push(s),
      initialRetryMs: 10_000,
    });
    await until(() => statuses.includes('reconnecting'), 'the first refusal');
    stream.close();
    expect(statuses[statuses.length - 1]).toBe('closed');
    expect(server.seen).toHaveLength(1);
  });
});

describe(openFollowingEventStream.name, () => {
  function fakes() {
    const opened: { options: EventStreamOptions; closed: boolean }[] = [];
    const notices: string[] = [];
    const statuses: StreamStatus[] = [];
    const stream = openFollowingEventStream(
      {
        baseUrl: 'http://daemon',
        token: null,
        frontier: ['a'],
        onNotice: (n) => notices.push(String(n.data.ref)),
        onStatus: (s) => statuses.push(s),
      },
      (options) => {
        const one = { options, closed: false };
        opened.push(one);
        options.onStatus?.('connecting');
        return { close: () => (one.closed = true), lastEventId: null };
      },
    );
    const notice = (n: number, ref: string) => opened[n].options.onNotice({ type: 'item', id: null, data: { ref } });
    return { stream, opened, notices, statuses, notice };
  }

  it('should replace an open connection once the new one is open, delivering the old one’s notices until then', () => {
    const { stream, opened, notices, statuses, notice } = fakes();
    opened[0].options.onStatus?.('open');
    stream.follow(['a']);
    expect(opened).toHaveLength(1);
    stream.follow(['b']);
    expect(opened.map((o) => o.options.frontier)).toEqual([['a'], ['b']]);
    opened[1].options.onStatus?.('reconnecting');
    notice(0, 'old');
    opened[1].options.onStatus?.('open');
    expect(opened[0].closed).toBe(true);
    notice(0, 'late');
    notice(1, 'new');
    expect(notices).toEqual(['old', 'new']);
    expect(statuses).toEqual(['connecting', 'open', 'open']);
    stream.close();
    expect(opened[1].closed).toBe(true);
    expect(statuses[statuses.length - 1]).toBe('closed');
  });

  it('should replace a connection that is not open at once, and let a waiting one take over when the open one drops', () => {
    const { stream, opened, statuses } = fakes();
    stream.follow(['b']);
    expect(opened[0].closed).toBe(true);
    opened[1].options.onStatus?.('open');
    stream.follow(['c']);
    // the switch abandoned for another: the connection for c is never needed
    stream.follow(['b']);
    expect(opened[2].closed).toBe(true);
    expect(opened).toHaveLength(3);
    stream.follow(['d']);
    opened[1].options.onStatus?.('reconnecting');
    expect(opened[1].closed).toBe(true);
    opened[3].options.onStatus?.('open');
    expect(statuses).toEqual(['connecting', 'connecting', 'open', 'reconnecting', 'open']);
    stream.close();
  });
  // the daemon counts streams per client address (and per actor): at the limit, the replacement is refused with 429
  // while the old connection stands
  it('should close the old connection when the limit of streams refuses its replacement, and go on with the new', () => {
    const { stream, opened, notices, statuses, notice } = fakes();
    opened[0].options.onStatus?.('open');
    stream.follow(['b']);
    const tooMany = new SvcHttpError(429, {
      code: 'event_stream_limit_reached',
      message: 'at most 1 event streams may be open at once for this client address',
    });
    opened[1].options.onStatus?.('reconnecting', { error: tooMany, attempt: 1, retryInMs: 1000 });
    expect(opened[0].closed).toBe(true);
    notice(0, 'late');
    opened[1].options.onStatus?.('open');
    notice(1, 'new');
    expect(notices).toEqual(['new']);
    expect(statuses).toEqual(['connecting', 'open', 'reconnecting', 'open']);
    stream.close();
  });
});

describe(backoffDelay.name, () => {
  it('should double per attempt, cap, and jitter between half and all of the delay', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, 1000, 30_000, () => 0.999999))).toEqual([
      1000, 2000, 4000, 8000, 16000, 30000,
    ]);
    expect(backoffDelay(3, 1000, 30_000, () => 0)).toBe(2000);
    expect(backoffDelay(50, 1000, 30_000, () => 0.5)).toBe(22500);
  });
});
