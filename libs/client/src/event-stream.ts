import { createParser, EventSourceMessage } from 'eventsource-parser';

import type { ErrorBody, StreamNotice } from '@app/contracts';

import { SvcHttpError } from './http-client';
import { readText, send } from './transport';

export type StreamStatus = 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface StreamStatusDetail {
  error?: unknown;
  attempt?: number;
  retryInMs?: number;
}

export interface EventStreamOptions {
  baseUrl: string;
  token: string | null;
  project?: string;
  // the projects whose frontier notices (`event: frontier`) the stream receives, at most 8 (`?frontier=`); without
  // it the daemon sends them for the `project` filter's project only (none on a stream without one)
  frontier?: string[];
  onFrontierRefused?(error: SvcHttpError): void;
  eventName?: string;
  lastEventId?: string | null;
  onNotice(notice: StreamNotice): void;
  onStatus?(status: StreamStatus, detail?: StreamStatusDetail): void;
  initialRetryMs?: number;
  maxRetryMs?: number;
  // no byte (not even the daemon's 15 s heartbeat comment) for this long: the connection is presumed dead (ms)
  idleTimeoutMs?: number;
  random?: () => number;
  headers?: Record<string, string>;
}

export interface EventStream {
  close(): void;
  readonly lastEventId: string | null;
}

export const STREAM_DEFAULTS = { initialRetryMs: 1000, maxRetryMs: 30_000, idleTimeoutMs: 45_000 } as const;

// Capped exponential backoff with jitter: attempt 1 waits base·[0.5, 1), attempt n base·2^(n-1)·[0.5, 1),
// never more than the cap. The jitter spreads the reconnections of many clients after a daemon restart.
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, random: () => number): number {
  const exponential = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential * (0.5 + 0.5 * random()));
}

export function toNotice(message: EventSourceMessage): StreamNotice {
  let data: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(message.data);
    data =
      typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : { value: parsed };
  } catch {
    data = { text: message.data };
  }
  return { type: message.event ?? 'message', id: message.id ?? null, data };
}

// 401 and 403 end the stream: retrying cannot fix a revoked or expired credential.
export function openEventStream(options: EventStreamOptions): EventStream {
  const initialRetryMs = options.initialRetryMs ?? STREAM_DEFAULTS.initialRetryMs;
  const maxRetryMs = options.maxRetryMs ?? STREAM_DEFAULTS.maxRetryMs;
  const idleTimeoutMs = options.idleTimeoutMs ?? STREAM_DEFAULTS.idleTimeoutMs;
  const random = options.random ?? Math.random;
  let lastEventId = options.lastEventId ?? null;
  let serverRetryMs: number | null = null;
  let closed = false;
  let controller: AbortController | null = null;
  let timer: NodeJS.Timeout | null = null;
  let wakeUp: (() => void) | null = null;

  const status = (s: StreamStatus, detail?: StreamStatusDetail) => {
    try {
      options.onStatus?.(s, detail);
    } catch {
      // a failing listener must not stop the stream
    }
  };

  const target = new URL('v1/events/stream', options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
  if (options.project) target.searchParams.set('project', options.project);
  if (options.eventName) target.searchParams.set('event_name', options.eventName);
  if (options.frontier) target.searchParams.set('frontier', options.frontier.join(','));

  const parser = createParser({
    onEvent(message) {
      if (message.id !== undefined && message.id.length > 0) lastEventId = message.id;
      if (closed) return;
      try {
        options.onNotice(toNotice(message));
      } catch {
        // the consumer's failure is its own; keep reading
      }
    },
    onRetry(ms) {
      serverRetryMs = ms;
    },
  });

  const connectOnce = async (): Promise<{ opened: boolean; error?: unknown; fatal?: boolean; again?: boolean }> => {
    controller = new AbortController();
    const headers: Record<string, string> = {
      ...options.headers,
      accept: 'text/event-stream',
      'cache-control': 'no-cache',
    };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (lastEventId) headers['last-event-id'] = lastEventId;
    let opened = false;
    try {
      const res = await send(target, { method: 'GET', headers, signal: controller.signal, idleTimeoutMs });
      if (res.status !== 200) {
        const text = await readText(res.body).catch(() => '');
        let body: ErrorBody = { code: `http_${res.status}`, message: text.slice(0, 200) };
        let fields: unknown = null;
        try {
          const parsed = JSON.parse(text) as { code?: unknown; message?: unknown; fields?: unknown };
          if (typeof parsed.code === 'string') body = { code: parsed.code, message: String(parsed.message ?? '') };
          fields = parsed.fields;
          if (fields !== undefined) body.fields = fields;
        } catch {
          // not JSON: keep the text
        }
        // A daemon older than `?frontier=` refuses it as an unknown parameter (so does any daemon a list it cannot
        // take): the stream goes on without it, at once; the frontier then follows the change notices.
        const error = new SvcHttpError(res.status, body, res.headers);
        if (res.status === 400 && target.searchParams.has('frontier') && namesField(fields, 'frontier')) {
          target.searchParams.delete('frontier');
          try {
            options.onFrontierRefused?.(error);
          } catch {
            // the listener's failure is its own
          }
          return { opened, again: true };
        }
        return { opened, error, fatal: res.status === 401 || res.status === 403 };
      }
      opened = true;
      parser.reset();
      status('open');
      const decoder = new TextDecoder();
      for await (const chunk of res.body) {
        if (closed) break;
        parser.feed(decoder.decode(chunk as Buffer, { stream: true }));
      }
      return { opened, error: new Error('stream ended') };
    } catch (error) {
      return { opened, error };
    } finally {
      controller = null;
    }
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      wakeUp = resolve;
      timer = setTimeout(() => {
        timer = null;
        wakeUp = null;
        resolve();
      }, ms);
    });

  const loop = async () => {
    let attempt = 0;
    status('connecting');
    while (!closed) {
      const result = await connectOnce();
      if (closed) break;
      if (result.again) continue;
      if (result.fatal) {
        closed = true;
        status('closed', { error: result.error });
        return;
      }
      attempt = result.opened ? 1 : attempt + 1;
      const retryInMs = backoffDelay(attempt, serverRetryMs ?? initialRetryMs, maxRetryMs, random);
      status('reconnecting', { error: result.error, attempt, retryInMs });
      await sleep(retryInMs);
    }
  };
  void loop();

  return {
    close() {
      if (closed) return;
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
      wakeUp?.();
      wakeUp = null;
      controller?.abort();
      status('closed');
    },
    get lastEventId() {
      return lastEventId;
    },
  };
}

// the daemon's refusal of a stream past its streams per actor or per client address (events.errors.ts)
function overStreamLimit(error: unknown): boolean {
  return error instanceof SvcHttpError && error.status === 429 && error.body.code === 'event_stream_limit_reached';
}

function namesField(fields: unknown, name: string): boolean {
  return (
    Array.isArray(fields) &&
    fields.some((f) => typeof f === 'object' && f !== null && (f as { field?: unknown }).field === name)
  );
}

// Make before break: the new connection replaces the old one once open, so no change notice falls between the two
// and the switch reports no 'reconnecting'. Its 'open' is reported as any new connection's (what the old one
// announced no longer holds: FrontierNoticeTracker.reset).
export interface FollowingEventStream extends EventStream {
  follow(frontier: string[]): void;
}

export function openFollowingEventStream(
  options: EventStreamOptions,
  open: (options: EventStreamOptions) => EventStream = openEventStream,
): FollowingEventStream {
  interface Connection {
    stream: EventStream | null;
    status: StreamStatus;
    key: string;
  }
  let closed = false;
  let current: Connection | null = null;
  let pending: Connection | null = null;
  // no parameter and an empty list differ (the `project` filter's project, or none)
  const keyOf = (frontier: string[] | undefined) => (frontier ? `=${frontier.join(',')}` : '');
  const report = (status: StreamStatus, detail?: StreamStatusDetail) => {
    if (!closed) options.onStatus?.(status, detail);
  };
  const promote = (next: Connection) => {
    const old = current;
    current = next;
    if (pending === next) pending = null;
    old?.stream?.close();
  };
  const start = (frontier: string[] | undefined, role: 'current' | 'pending'): void => {
    const connection: Connection = { stream: null, status: 'connecting', key: keyOf(frontier) };
    if (role === 'current') promote(connection);
    else pending = connection;
    connection.stream = open({
      ...options,
      frontier,
      onNotice: (notice) => {
        if (!closed && connection === current) options.onNotice(notice);
      },
      onStatus: (status, detail) => {
        connection.status = status;
        if (closed) return;
        if (connection === pending) {
          if (status === 'open') {
            promote(connection);
            report('open', detail);
          } else if (status === 'closed' && detail?.error !== undefined) {
            // refused for good (the credential): so will the old connection be; say it now
            pending = null;
            report('closed', detail);
          } else if (status === 'reconnecting' && overStreamLimit(detail?.error)) {
            // refused because the old connection takes the caller's last stream (a daemon's streams per address or
            // per actor): it never opens while the old one stands, so break before make; it tries again without it
            promote(connection);
            report('reconnecting', detail);
          }
          return;
        }
        if (connection !== current) return;
        // the old connection dropped while its replacement is on its way: the replacement takes over
        if (status === 'reconnecting' && pending !== null) promote(pending);
        report(status, detail);
      },
    });
  };
  start(options.frontier, 'current');
  return {
    follow(frontier) {
      if (closed) return;
      const key = keyOf(frontier);
      if ((pending ?? current)?.key === key) return;
      const abandoned = pending;
      pending = null;
      abandoned?.stream?.close();
      if (current?.key === key) return;
      start(frontier, current?.status === 'open' ? 'pending' : 'current');
    },
    close() {
      if (closed) return;
      closed = true;
      pending?.stream?.close();
      current?.stream?.close();
      options.onStatus?.('closed');
    },
    get lastEventId() {
      return current?.stream?.lastEventId ?? null;
    },
  };
}
