import type { IncomingMessage } from 'node:http';

import { formatNote } from './daemon-notes';
import { acceptedRequestId, assignRequestId } from './request-id';

describe(acceptedRequestId.name, () => {
  it.each(['abc-123', '01HZY3Q7ZK4V9J6T3X5W8N2M1P', 'f3c1e6a4-0c39-4f2e-9a47-1b0b5a2d9c11', 'caddy:1.2@x'])(
    'should take %s as it is',
    (id) => {
      expect(acceptedRequestId(id)).toBe(id);
    },
  );

  it.each(['', 'two words', 'quote"d', 'new\nline', 'x'.repeat(129), 'ünï'])('should refuse %j', (id) => {
    expect(acceptedRequestId(id)).toBeNull();
  });

  it('should take the first of repeated headers', () => {
    expect(acceptedRequestId(['a1', 'b2'])).toBe('a1');
    expect(acceptedRequestId(undefined)).toBeNull();
  });
});

describe(assignRequestId.name, () => {
  it('should keep the id on the raw request, a new UUID when the header is unusable', () => {
    const req = { headers: { 'x-request-id': 'bad id' } } as unknown as IncomingMessage & { id?: string };
    const id = assignRequestId(req);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(req.id).toBe(id);
  });
});

describe(formatNote.name, () => {
  it('should write one pino-shaped JSON line in the JSON format', () => {
    const line = formatNote('json', 'fatal', 'failed to start: "x"\nnext', { url: 'http://h' }, 1000);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    expect(JSON.parse(line)).toMatchObject({
      level: 60,
      time: 1000,
      context: 'daemon',
      url: 'http://h',
      msg: 'failed to start: "x"\nnext',
    });
  });

  it('should write a plain line in the pretty format', () => {
    expect(formatNote('pretty', 'info', 'listening on http://h')).toBe('svc daemon: listening on http://h\n');
  });
});
