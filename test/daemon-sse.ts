// A minimal reader of the daemon's event stream for e2e tests (the TUI's client uses eventsource-parser).

import { waitFor } from '@app/testing/wait-for';

export interface SseMessage {
  event: string;
  id: string | null;
  data: Record<string, unknown>;
}

export interface OpenedStream {
  status: number;
  contentType: string | null;
  messages: SseMessage[];
  // true once the server ended the stream (not when close() aborted it)
  readonly ended: boolean;
  waitFor(predicate: (m: SseMessage) => boolean, timeoutMs?: number): Promise<SseMessage>;
  close(): Promise<void>;
}

// Opens GET /v1/events/stream (query and headers as given) and collects parsed messages until closed.
export async function openStream(
  base: string,
  token: string,
  options: { query?: string; headers?: Record<string, string> } = {},
): Promise<OpenedStream> {
  const controller = new AbortController();
  const res = await fetch(`${base}/v1/events/stream${options.query ? `?${options.query}` : ''}`, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', ...(options.headers ?? {}) },
    signal: controller.signal,
  });
  const messages: SseMessage[] = [];
  let ended = false;
  let buffer = '';
  const decoder = new TextDecoder();
  const pump =
    res.status !== 200
      ? res.text().then(
          () => undefined,
          () => undefined,
        )
      : (async () => {
          const reader = res.body!.getReader();
          try {
            for (;;) {
              const { value, done } = await reader.read();
              if (done) {
                ended = true;
                return;
              }
              buffer += decoder.decode(value, { stream: true });
              let end: number;
              while ((end = buffer.indexOf('\n\n')) >= 0) {
                const block = buffer.slice(0, end);
                buffer = buffer.slice(end + 2);
                const fields = Object.fromEntries(
                  block
                    .split('\n')
                    .filter((l) => !l.startsWith(':') && l.includes(': '))
                    .map((l) => [l.slice(0, l.indexOf(': ')), l.slice(l.indexOf(': ') + 2)]),
                );
                if (fields.data) {
                  messages.push({ event: fields.event, id: fields.id ?? null, data: JSON.parse(fields.data) });
                }
              }
            }
          } catch {
            // aborted
          }
        })();
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    messages,
    get ended() {
      return ended;
    },
    waitFor: (predicate, timeoutMs = 20000) =>
      waitFor(() => messages.find(predicate), { timeout: timeoutMs, interval: 25 }).catch(() => {
        throw new Error(`no matching message; got ${JSON.stringify(messages)}`);
      }),
    close: async () => {
      controller.abort();
      await pump;
    },
  };
}

// Polls until `check` answers true (a generous deadline; never a fixed sleep): libs/testing's waitFor.
export async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 20000): Promise<void> {
  await waitFor(check, { timeout: timeoutMs, interval: 50 });
}
