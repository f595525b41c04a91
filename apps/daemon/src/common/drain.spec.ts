import Fastify from 'fastify';

import { drain, registerDrainHooks } from './drain';

// The drain's edge: while draining a request is still served, with Connection: close; once closing, a new
// one is answered the daemons' own JSON 503 shutting_down with Retry-After, never Fastify's default body.
describe('registerDrainHooks', () => {
  const app = Fastify();
  registerDrainHooks(app);
  app.get('/v1/thing', () => ({ ok: true }));

  afterEach(() => drain.reset());
  afterAll(() => app.close());

  it('should serve normally while serving', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/thing' });
    expect(res.statusCode).toBe(200);
    expect(res.headers.connection).not.toBe('close');
  });

  it('should still serve while draining, closing each connection after its answer', async () => {
    drain.begin();
    const res = await app.inject({ method: 'GET', url: '/v1/thing' });
    expect(res.statusCode).toBe(200);
    expect(res.headers.connection).toBe('close');
  });

  it('should answer a JSON 503 shutting_down with Retry-After once closing', async () => {
    drain.begin();
    await drain.settle(0);
    expect(drain.phase).toBe('closing');
    const res = await app.inject({ method: 'POST', url: '/v1/thing', payload: { a: 1 } });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({ code: 'shutting_down', message: 'this replica is shutting down; retry in 1 s' });
  });

  it('should close at once when no balancer asked /livez, and wait for one that does', async () => {
    drain.begin();
    const started = Date.now();
    await drain.settle(10_000);
    expect(Date.now() - started).toBeLessThan(5_000);
    drain.reset();
    drain.livez();
    drain.begin();
    const settling = drain.settle(10_000);
    let settled = false;
    void settling.then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(settled).toBe(false);
    drain.probed();
    await settling;
    expect(drain.phase).toBe('closing');
  });
});
