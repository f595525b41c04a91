import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

import { SvcApi, SvcClient } from '@app/client';
import { CLIENT_HEADER } from '@app/contracts';
import type { SvcMcpOptions, SvcMcpSession } from '@app/client/mcp';

import { version } from '../../../../package.json';
import { AuthenticatedActor } from '../auth/actor';
import { onConnectionClose } from '../common/connection-close';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { EventsService } from '../events/events.service';
import { StreamLimits } from '../events/stream-limits';
import { RequestIdentityService } from '../machine-authorization/request-identity';
import { mcpOriginRefused, mcpSessionLimitReached, mcpStreamLimitReached } from './mcp.errors';
import { McpSessionRow, McpSessionsRepository } from './mcp-sessions.repository';

// The MCP SDK and svc's MCP server load with the first /mcp request: they were a fifth of the daemon's start-up.
interface McpModules {
  sdk: typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  svc: typeof import('@app/client/mcp');
}
let mcpModules: Promise<McpModules> | null = null;
function loadMcp(): Promise<McpModules> {
  mcpModules ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@app/client/mcp'),
  ]).then(([sdk, svc]) => ({ sdk, svc }));
  return mcpModules;
}

// Idle this long (no open stream): the session ends and its claims are released, like a closed stdio pipe.
export const MCP_HTTP_IDLE_MS = 15 * 60_000;
const SWEEP_MS = 60_000;
// How often a held GET stream keeps its session alive and picks up subscriptions made through other replicas.
const STREAM_TOUCH_MS = 5_000;
// An expired session's row is kept this much longer, for the replica holding it to end its executor session.
const EXPIRED_GRACE_MS = 2 * SWEEP_MS;

// The flags of `svc mcp` as /mcp query parameters or headers (the query wins), read at initialize.
export const MCP_NAMING = {
  project: { query: 'project', header: 'x-svc-project' },
  harness: { query: 'harness', header: 'x-svc-harness' },
  model: { query: 'model', header: 'x-svc-model' },
} as const;
export const MCP_HTTP_PROJECT_HINT =
  'or connect to /mcp?project=<id> (or send the header X-Svc-Project: <id>) when the MCP session starts';

interface HttpMcpConnection {
  id: string;
  actorId: number;
  address: string;
  transport: StreamableHTTPServerTransport;
  mcp: SvcMcpSession;
  lastSeen: number;
  openStreams: number;
  // subscribe and unsubscribe calls made here, and how many of them are still being stored (subscriptionsAsOf)
  subscriptionEdits: number;
  savingSubscriptions: number;
  // this replica lets go of the session (restart, idle here while served elsewhere): its executor session goes on
  detaching: boolean;
}

// Each session is the same SvcMcpSession as `svc mcp`, calling this daemon's HTTP API over loopback with the
// caller's own token: every rule of the API applies unchanged. Sessions are rows of mcp_http_sessions, so any replica
// can rebuild one; a session no replica knows answers 404 and the client initializes again.
@Injectable()
export class McpHttpService implements OnModuleDestroy {
  private readonly logger = new Logger('mcp');
  private readonly connections = new Map<string, HttpMcpConnection>();
  private readonly rebuilding = new Map<string, Promise<HttpMcpConnection>>();
  private sweep: NodeJS.Timeout | null = null;
  private streamTouch: NodeJS.Timeout | null = null;
  private stopping = false;
  private readonly sessionLimits: StreamLimits;
  private readonly streamLimits: StreamLimits;

  constructor(
    private readonly events: EventsService,
    private readonly identity: RequestIdentityService,
    private readonly store: McpSessionsRepository,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.sessionLimits = new StreamLimits(
      config.mcpSessionsPerActor,
      config.mcpSessionsPerAddress,
      mcpSessionLimitReached,
    );
    this.streamLimits = new StreamLimits(config.mcpStreamsPerActor, config.mcpStreamsPerAddress, mcpStreamLimitReached);
  }

  // The MCP spec's guard against DNS rebinding: a browser page may call /mcp only from this server's origin; clients
  // that are not browsers send no Origin and pass.
  private checkOrigin(req: IncomingMessage): void {
    const origin = req.headers.origin;
    if (origin === undefined) return;
    const own = originOf(this.identity.describe(req).origin);
    if (own === null || originOf(origin) !== own) throw mcpOriginRefused(origin);
  }

  async handle(
    actor: AuthenticatedActor,
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    loopback: string,
  ): Promise<void> {
    this.checkOrigin(req);
    const modules = await loadMcp();
    const sessionHeader = req.headers['mcp-session-id'];
    const id = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
    if (id !== undefined) {
      let connection = this.connections.get(id);
      const asOf = subscriptionsAsOf(connection);
      // Another caller's session answers like a missing one; so does one no replica knows (any more).
      const row =
        connection && connection.actorId !== actor.id ? null : await this.store.touch(id, actor.id, MCP_HTTP_IDLE_MS);
      if (!row) {
        // ended through another replica (DELETE, expired): this replica lets go of it too
        if (connection && connection.actorId === actor.id) this.letGo(connection);
        return writeJson(res, 404, {
          jsonrpc: '2.0',
          error: { code: -32001, message: 'MCP session not found' },
          id: null,
        });
      }
      if (!connection) {
        let pending = this.rebuilding.get(id);
        if (!pending) {
          pending = this.rebuild(modules, id, actor, req, row, loopback).finally(() => this.rebuilding.delete(id));
          this.rebuilding.set(id, pending);
        }
        connection = await pending;
      }
      connection.lastSeen = Date.now();
      // the replica that holds the GET stream sends the notifications: it follows the session's subscriptions
      if (req.method === 'GET') followStored(connection, row.subscriptions, asOf);
      return this.serve(connection, req, res, body);
    }
    if (req.method !== 'POST') {
      return writeJson(res, 400, {
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' },
        id: null,
      });
    }
    // A new session (the transport refuses anything but an initialize request here).
    const address = this.identity.describe(req).clientKey;
    const releaseSlot = this.sessionLimits.acquire(actor.id, address);
    const naming = namingOf(req);
    const { harnessToken } = modules.svc;
    const harness = harnessToken(naming.harness) ?? harnessToken(clientNameOf(body));
    let connection: HttpMcpConnection | null = null;
    const transport = new modules.sdk.StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: async (sessionId) => {
        connection = this.adopt(sessionId, actor, address, transport, mcp);
        // Registered before the client hears of the MCP session, so its next request finds it on any replica.
        const executor = await mcp.ensureSession().catch((err: unknown) => {
          this.logger.warn(`MCP session registration failed: ${err instanceof Error ? err.message : String(err)}`);
          return null;
        });
        await this.store.open(sessionId, MCP_HTTP_IDLE_MS, {
          actorId: actor.id,
          project: naming.project,
          harness,
          model: naming.model,
          executorSessionId: executor?.session_id ?? null,
        });
      },
    });
    const { mcp, origin } = this.session(modules, actor, req, loopback, {
      project: naming.project,
      harness,
      model: naming.model,
      resume: null,
      onState: (state) => this.saveState(transport.sessionId, state),
    });
    transport.onclose = () => {
      releaseSlot();
      this.closed(transport, mcp, origin, connection);
    };
    try {
      await mcp.server.connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      if (!connection) releaseSlot();
    }
    if (!connection) {
      origin.revoke();
      await mcp.close();
      await transport.close();
    }
  }

  private session(
    modules: McpModules,
    actor: AuthenticatedActor,
    req: IncomingMessage,
    loopback: string,
    more: Pick<SvcMcpOptions, 'project' | 'harness' | 'model' | 'resume' | 'onState'>,
  ) {
    const token = bearerOf(req);
    const origin = this.events.vouchForStreams(actor, req);
    const mcp = new modules.svc.SvcMcpSession({
      api: new SvcApi(mcpClient(loopback, token)),
      token,
      streamHeaders: origin.headers,
      version,
      label: 'svc mcp (http)',
      projectHint: MCP_HTTP_PROJECT_HINT,
      log: (line) => this.logger.log(line),
      ...more,
    });
    return { mcp, origin };
  }

  private adopt(
    id: string,
    actor: AuthenticatedActor,
    address: string,
    transport: StreamableHTTPServerTransport,
    mcp: SvcMcpSession,
  ): HttpMcpConnection {
    const connection: HttpMcpConnection = {
      id,
      actorId: actor.id,
      address,
      transport,
      mcp,
      lastSeen: Date.now(),
      openStreams: 0,
      subscriptionEdits: 0,
      savingSubscriptions: 0,
      detaching: false,
    };
    this.connections.set(id, connection);
    this.startSweep();
    return connection;
  }

  private async rebuild(
    modules: McpModules,
    id: string,
    actor: AuthenticatedActor,
    req: IncomingMessage,
    row: McpSessionRow,
    loopback: string,
  ): Promise<HttpMcpConnection> {
    const transport = new modules.sdk.StreamableHTTPServerTransport({ sessionIdGenerator: () => id });
    adoptSessionId(transport, id);
    const { mcp, origin } = this.session(modules, actor, req, loopback, {
      project: row.project,
      harness: row.harness,
      model: row.model,
      resume: { sessionId: row.executor_session_id, noticesAfter: row.notices_after, subscriptions: [] },
      onState: (state) => this.saveState(id, state),
    });
    const connection = this.adopt(id, actor, this.identity.describe(req).clientKey, transport, mcp);
    transport.onclose = () => this.closed(transport, mcp, origin, connection);
    await mcp.server.connect(transport);
    // its claims are renewed from here on (unless this request ends it)
    if (req.method !== 'DELETE') void mcp.ensureSession().catch(() => undefined);
    this.logger.log(`MCP session rebuilt from the store (executor session ${row.executor_session_id ?? 'none'})`);
    return connection;
  }

  private saveState(
    id: string | undefined,
    state: { sessionId?: number; noticesAfter?: string; subscribed?: string; unsubscribed?: string },
  ): void {
    if (id === undefined) return;
    const writes: Promise<void>[] = [];
    if (state.sessionId !== undefined) writes.push(this.store.setExecutorSession(id, state.sessionId));
    else if (state.noticesAfter !== undefined) writes.push(this.store.setNoticesAfter(id, state.noticesAfter));
    if (state.subscribed !== undefined) writes.push(this.store.subscribe(id, state.subscribed, true));
    if (state.unsubscribed !== undefined) writes.push(this.store.subscribe(id, state.unsubscribed, false));
    const edited = state.subscribed !== undefined || state.unsubscribed !== undefined ? this.connections.get(id) : null;
    if (edited) {
      edited.subscriptionEdits++;
      edited.savingSubscriptions++;
    }
    void Promise.all(writes)
      .catch((err: unknown) =>
        this.logger.warn(`MCP session state not stored: ${err instanceof Error ? err.message : String(err)}`),
      )
      .finally(() => {
        if (edited) edited.savingSubscriptions--;
      });
  }

  // Closed by DELETE or idle: the executor session ends and the row goes; detaching: it goes on elsewhere.
  private closed(
    transport: StreamableHTTPServerTransport,
    mcp: SvcMcpSession,
    origin: { revoke(): void },
    connection: HttpMcpConnection | null,
  ): void {
    const id = transport.sessionId;
    if (id !== undefined && this.connections.get(id) === connection) this.connections.delete(id);
    origin.revoke();
    if (connection?.detaching || this.stopping) {
      mcp.detach();
      return;
    }
    void mcp.close();
    if (id !== undefined) void this.store.end(id).catch(() => undefined);
  }

  private letGo(connection: HttpMcpConnection): void {
    connection.detaching = true;
    void connection.transport.close();
  }

  private async serve(
    connection: HttpMcpConnection,
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
  ): Promise<void> {
    if (req.method === 'GET') {
      // gone while its session was read: no slot, and no stream for the transport to hold on to
      if (res.destroyed) return;
      const release = this.streamLimits.acquire(connection.actorId, connection.address);
      connection.openStreams++;
      this.startStreamTouch();
      onConnectionClose(res, () => {
        release();
        connection.openStreams--;
        connection.lastSeen = Date.now();
      });
    }
    await connection.transport.handleRequest(req, res, body);
  }

  private startSweep(): void {
    if (this.sweep) return;
    this.sweep = setInterval(() => void this.sweepOnce().catch(() => undefined), SWEEP_MS);
    this.sweep.unref();
  }

  // Idle here: ended when its row expired, else let go of (another replica serves it).
  private async sweepOnce(): Promise<void> {
    const now = Date.now();
    for (const connection of [...this.connections.values()]) {
      if (connection.openStreams > 0 || now - connection.lastSeen <= MCP_HTTP_IDLE_MS) continue;
      if (await this.store.alive(connection.id)) this.letGo(connection);
      else void connection.transport.close();
    }
    await this.store.sweep(EXPIRED_GRACE_MS);
  }

  private startStreamTouch(): void {
    if (this.streamTouch) return;
    this.streamTouch = setInterval(() => void this.touchStreams().catch(() => undefined), STREAM_TOUCH_MS);
    this.streamTouch.unref();
  }

  private async touchStreams(): Promise<void> {
    const streaming = [...this.connections.values()].filter((c) => c.openStreams > 0);
    if (streaming.length === 0) return;
    const asOf = streaming.map(subscriptionsAsOf);
    const alive = await this.store.touchMany(
      streaming.map((c) => c.id),
      MCP_HTTP_IDLE_MS,
    );
    streaming.forEach((connection, i) => {
      const subscriptions = alive.get(connection.id);
      if (subscriptions === undefined) this.letGo(connection);
      else followStored(connection, subscriptions, asOf[i]);
    });
  }

  // Shutdown lets go of every session: each goes on through another replica in the same executor session.
  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    if (this.sweep) clearInterval(this.sweep);
    if (this.streamTouch) clearInterval(this.streamTouch);
    const closing = [...this.connections.values()].map(async (c) => {
      c.detaching = true;
      c.mcp.detach();
      await c.transport.close();
    });
    this.connections.clear();
    await Promise.race([Promise.allSettled(closing), new Promise((resolve) => setTimeout(resolve, 3000).unref())]);
  }
}

// A rebuilt transport is told its session id (the SDK's documented multi-node pattern, no public API yet:
// modelcontextprotocol/typescript-sdk#1658). Checked, so an SDK that changes these fields fails loudly.
export function adoptSessionId(transport: StreamableHTTPServerTransport, id: string): void {
  const inner = (transport as unknown as { _webStandardTransport?: { sessionId?: string; _initialized?: boolean } })
    ._webStandardTransport;
  if (!inner || !('_initialized' in inner)) {
    throw new Error('the MCP SDK transport changed: cannot rebuild a session initialized elsewhere');
  }
  inner.sessionId = id;
  inner._initialized = true;
}

function namingOf(req: IncomingMessage): { project: string | null; harness: string | null; model: string | null } {
  const query = new URL(req.url ?? '/', 'http://x').searchParams;
  const read = (key: keyof typeof MCP_NAMING) => {
    const header = req.headers[MCP_NAMING[key].header];
    const value = query.get(MCP_NAMING[key].query) ?? (Array.isArray(header) ? header[0] : header) ?? '';
    const trimmed = value.trim().slice(0, 100);
    return trimmed === '' ? null : trimmed;
  };
  return { project: read('project'), harness: read('harness'), model: read('model') };
}

function clientNameOf(body: unknown): string | null {
  const params = (body as { params?: { clientInfo?: { name?: unknown } } } | null)?.params;
  const name = params?.clientInfo?.name;
  return typeof name === 'string' ? name : null;
}

function originOf(url: string): string | null {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? null : origin.toLowerCase();
  } catch {
    return null;
  }
}

function bearerOf(req: IncomingMessage): string | null {
  return /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? null;
}

function writeJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

// The daemon's own address as this request reached it (an IPv6 address in brackets).
export function loopbackUrl(req: IncomingMessage): string {
  const address = req.socket.localAddress ?? '127.0.0.1';
  const host = address.includes(':') ? `[${address}]` : address;
  return `http://${host}:${req.socket.localPort}`;
}

// The MCP server's own calls to this daemon name their path (x-svc-client: mcp) for the record of each write.
function mcpClient(loopback: string, token: string | null): SvcClient {
  const http = new SvcClient(loopback, token);
  http.headers[CLIENT_HEADER] = 'mcp';
  return http;
}

// A read of the session's row may set the subscriptions only if none was made here since it began, nor was still
// being stored when it began: a subscribe takes effect here at once and is stored after, so a row read meanwhile
// would undo it until the next touch (STREAM_TOUCH_MS). null: the read may miss one.
type SubscriptionEdits = Pick<HttpMcpConnection, 'subscriptionEdits' | 'savingSubscriptions'>;

export function subscriptionsAsOf(connection: SubscriptionEdits | undefined): number | null {
  if (connection === undefined) return 0;
  return connection.savingSubscriptions > 0 ? null : connection.subscriptionEdits;
}

// Subscriptions made through another replica, followed here; a stale read is left for the next touch.
export function followStored(
  connection: SubscriptionEdits & { mcp: Pick<SvcMcpSession, 'setSubscriptions'> },
  subscriptions: string[],
  asOf: number | null,
): void {
  if (asOf !== null && connection.subscriptionEdits === asOf) connection.mcp.setSubscriptions(subscriptions);
}
