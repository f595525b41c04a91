import type { IncomingMessage, ServerResponse } from 'node:http';

import { testActor } from '../auth/test-actor';
import type { AppConfig } from '../config/app-config';
import { DomainError } from '../common/domain-error';
import type { EventsService } from '../events/events.service';
import type { RequestIdentityService } from '../machine-authorization/request-identity';
import type { McpSessionsRepository } from './mcp-sessions.repository';
import { followStored, McpHttpService, subscriptionsAsOf } from './mcp-http.service';

// The /mcp refusals decided before any MCP session runs, over mocked collaborators: the origin guard, a request
// that names no session, a session nobody holds, and the caps' slots given back when no session came of a request.

const ACTOR = testActor();
const LOOPBACK = 'http://127.0.0.1:7700';

function makeSut(caps: Partial<AppConfig> = {}) {
  const store = {
    touch: jest.fn(async () => null),
    open: jest.fn(async () => undefined),
    end: jest.fn(async () => undefined),
  };
  const identity = {
    describe: jest.fn(() => ({ origin: 'https://svc.example.com', clientKey: '198.51.100.7' })),
  };
  const events = { vouchForStreams: jest.fn(() => ({ headers: {}, revoke: () => undefined })) };
  const config = {
    mcpSessionsPerActor: 16,
    mcpSessionsPerAddress: 32,
    mcpStreamsPerActor: 16,
    mcpStreamsPerAddress: 32,
    ...caps,
  } as AppConfig;
  const sut = new McpHttpService(
    events as unknown as EventsService,
    identity as unknown as RequestIdentityService,
    store as unknown as McpSessionsRepository,
    config,
  );
  return { sut, store };
}

function request(method: string, headers: Record<string, string> = {}): IncomingMessage {
  return {
    method,
    url: '/mcp',
    headers: { authorization: 'Bearer svc_test', accept: 'application/json, text/event-stream', ...headers },
  } as unknown as IncomingMessage;
}

// What the service wrote: status and JSON body.
function response() {
  const written: { status: number | null; body: string } = { status: null, body: '' };
  const res = {
    headersSent: false,
    writeHead(status: number) {
      written.status = status;
      return res;
    },
    end(body?: string) {
      written.body += body ?? '';
      return res;
    },
  };
  return { res: res as unknown as ServerResponse, written, json: () => JSON.parse(written.body) as unknown };
}

describe('McpHttpService (refusals before a session)', () => {
  it('should refuse a browser page of another origin with mcp_origin_refused, before reading any session', async () => {
    const { sut, store } = makeSut();
    const { res, written } = response();
    const err: unknown = await sut
      .handle(ACTOR, request('POST', { origin: 'https://evil.example' }), res, {}, LOOPBACK)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ code: 'mcp_origin_refused', status: 403 });
    expect(written.status).toBeNull();
    expect(store.touch).not.toHaveBeenCalled();
  });

  it('should let the server’s own origin through to the session lookup', async () => {
    const { sut, store } = makeSut();
    const { res, written } = response();
    await sut.handle(
      ACTOR,
      request('POST', { origin: 'https://svc.example.com', 'mcp-session-id': 'abc' }),
      res,
      {},
      LOOPBACK,
    );
    expect(store.touch).toHaveBeenCalledWith('abc', ACTOR.id, expect.any(Number));
    expect(written.status).toBe(404);
  });

  it('should answer a GET or DELETE that names no session 400, as JSON-RPC', async () => {
    const { sut } = makeSut();
    for (const method of ['GET', 'DELETE']) {
      const { res, written, json } = response();
      await sut.handle(ACTOR, request(method), res, undefined, LOOPBACK);
      expect(written.status).toBe(400);
      expect(json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    }
  });

  it('should answer a session no replica holds 404 (-32001), so the client initializes again', async () => {
    const { sut, store } = makeSut();
    const { res, written, json } = response();
    await sut.handle(ACTOR, request('POST', { 'mcp-session-id': 'gone' }), res, {}, LOOPBACK);
    expect(written.status).toBe(404);
    expect(json()).toMatchObject({ error: { code: -32001, message: 'MCP session not found' } });
    expect(store.touch).toHaveBeenCalledWith('gone', ACTOR.id, expect.any(Number));
  });

  it('should give the session slot back when a request opens no session (one slot, asked twice)', async () => {
    const { sut, store } = makeSut({ mcpSessionsPerActor: 1 });
    for (let i = 0; i < 2; i++) {
      const { res } = response();
      // not an initialize request: the transport refuses it and no session comes of it
      const outcome: unknown = await sut
        .handle(ACTOR, request('POST'), res, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, LOOPBACK)
        .catch((e: unknown) => e);
      // a slot kept would refuse the second with mcp_session_limit_reached
      expect(outcome).toBeUndefined();
    }
    expect(store.open).not.toHaveBeenCalled();
  });
});

describe('a session row read against subscriptions made here', () => {
  const connection = () => ({ subscriptionEdits: 0, savingSubscriptions: 0, mcp: { setSubscriptions: jest.fn() } });
  const FRONTIER = ['svc://frontier/res'];

  it('should follow what the row says when nothing was subscribed here meanwhile', () => {
    const c = connection();
    const asOf = subscriptionsAsOf(c);
    followStored(c, FRONTIER, asOf);
    expect(c.mcp.setSubscriptions).toHaveBeenCalledWith(FRONTIER);
  });

  it('should leave a subscription made here while the row was read (the next touch reads it stored)', () => {
    const c = connection();
    const asOf = subscriptionsAsOf(c);
    c.subscriptionEdits++;
    followStored(c, [], asOf);
    expect(c.mcp.setSubscriptions).not.toHaveBeenCalled();
  });

  it('should not trust a row read while a subscription made here was still being stored', () => {
    const c = { ...connection(), subscriptionEdits: 1, savingSubscriptions: 1 };
    const asOf = subscriptionsAsOf(c);
    c.savingSubscriptions = 0;
    followStored(c, [], asOf);
    expect(c.mcp.setSubscriptions).not.toHaveBeenCalled();
    // a session this replica rebuilds from the row has had no subscription made here
    expect(subscriptionsAsOf(undefined)).toBe(0);
  });
});
