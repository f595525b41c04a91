// The benches' event-stream reader: opens `/v1/events/stream?<query>`, hands each message's type and parsed data to
// `onMessage`, and resolves once the daemon's `: connected` comment has come; `done` settles when the stream ends or
// `signal` aborts it.
export async function followEvents(
  url: string,
  token: string,
  query: string,
  signal: AbortSignal,
  onMessage: (type: string, data: Record<string, unknown>) => void,
): Promise<{ done: Promise<void> }> {
  const res = await fetch(`${url}/v1/events/stream?${query}`, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    signal,
  });
  if (!res.ok || !res.body) throw new Error(`stream ?${query}: ${res.status} ${await res.text()}`);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let ready!: () => void;
  const connected = new Promise<void>((r) => (ready = r));
  const done = (async () => {
    try {
      for (;;) {
        const { value, done: ended } = await reader.read();
        if (ended) return;
        buffer += decoder.decode(value, { stream: true });
        let at: number;
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          if (block.includes(': connected')) ready();
          const type = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (type && data) onMessage(type, JSON.parse(data) as Record<string, unknown>);
        }
      }
    } catch {
      // aborted
    }
  })();
  await connected;
  return { done };
}
