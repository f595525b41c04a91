import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

import { SvcApi, SvcClient } from '@app/client';
import { CLIENT_HEADER } from '@app/contracts';
import { SvcMcpSession } from '@app/client/mcp';

import { version } from '../../../../package.json';
import { AuthenticatedActor } from '../auth/actor';
import { APP_CONFIG, AppConfig } from '../config/config';
import { EventsService } from '../events/events.service';
import { StreamLimits } from '../events/stream-limits';
import { RequestIdentityService } from '../machine-authorization/request-identity';
import { mcpOriginRefused, mcpSessionLimitReached, mcpStreamLimitReached } from './mcp.errors';

// A connection that sent nothing for this long (and holds no open stream) is closed: its executor session ends and
// its claims are released, like a stdio client whose pipe closed.
export const MCP_HTTP_IDLE_MS = 15 * 60_000;
const SWEEP_MS = 60_000;

interface HttpMcpConnection {
  actorId: number;
  // the client address (budget key) that opened the connection: its GET streams count there too
  address: string;
  transport: StreamableHTTPServerTransport;
  mcp: SvcMcpSession;
  lastSeen: number;
  openStreams: number;
}

// The MCP server over Streamable HTTP (POST/GET/DELETE /mcp). The bearer guard has authenticated the caller before
// this runs. Each MCP connection is the same SvcMcpSession as `svc mcp`, calling this daemon's own HTTP API on the
// loopback address the request came in on, with the caller's own bearer token: every rule and trust boundary of
// the API (project access, gates, claims, the WIP cap) applies unchanged, and nothing here is a second copy of it.
// Connections live in this process: behind several replicas the proxy must keep a connection on one replica
// (the mcp-session-id header); a request that lands elsewhere answers 404 and the client starts a new connection.
@Injectable()
export class McpHttpService implements OnModuleDestroy {
  private readonly logger = new Logger('mcp');
  private readonly connections = new Map<string, HttpMcpConnection>();
  private sweep: NodeJS.Timeout | null = null;
  // Open connections and open GET streams per actor and per client address (429 + Retry-After past a cap), like
  // the event streams: one token or one address cannot hold hundreds of executor sessions and streams.
  private readonly sessionLimits: StreamLimits;
  private readonly streamLimits: StreamLimits;

  constructor(
    private readonly events: EventsService,
    private readonly identity: RequestIdentityService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.sessionLimits = new StreamLimits(
      config.mcpSessionsPerActor,
      config.mcpSessionsPerAddress,
      mcpSessionLimitReached,
    );
    this.streamLimits = new StreamLimits(config.mcpStreamsPerActor, config.mcpStreamsPerAddress, mcpStreamLimitReached);
  }

  // A browser names the page's origin on every request; only this server's own may call /mcp (the MCP spec's
  // guard against DNS rebinding: a hostile page whose name resolves to this daemon). Clients that are not
  // browsers send no Origin and pass.
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
    const sessionHeader = req.headers['mcp-session-id'];
    const id = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
    if (id !== undefined) {
      const connection = this.connections.get(id);
      // Another caller's connection answers like a missing one.
      if (!connection || connection.actorId !== actor.id) {
        return writeJson(res, 404, {
          jsonrpc: '2.0',
          error: { code: -32001, message: 'MCP session not found' },
          id: null,
        });
      }
      connection.lastSeen = Date.now();
      return this.serve(connection, req, res, body);
    }
    if (req.method !== 'POST') {
      return writeJson(res, 400, {
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' },
        id: null,
      });
    }
    // A new connection (the transport refuses anything but an initialize request here).
    const address = this.identity.describe(req).clientKey;
    const releaseSlot = this.sessionLimits.acquire(actor.id, address);
    const token = bearerOf(req);
    // The connection's live stream comes back over loopback: it counts against this client's address, not the
    // loopback address every MCP user of this replica would share (the per-actor cap applies as it is).
    const origin = this.events.vouchForStreams(actor, req);
    const mcp = new SvcMcpSession({
      api: new SvcApi(mcpClient(loopback, token)),
      token,
      streamHeaders: origin.headers,
      version,
      label: 'svc mcp (http)',
      log: (line) => this.logger.log(line),
    });
    let connection: HttpMcpConnection | null = null;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        connection = { actorId: actor.id, address, transport, mcp, lastSeen: Date.now(), openStreams: 0 };
        this.connections.set(sessionId, connection);
        this.startSweep();
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.connections.delete(transport.sessionId);
      releaseSlot();
      origin.revoke();
      void mcp.close();
    };
    try {
      await mcp.server.connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      // An initialize that failed (invalid request) leaves no connection behind.
      if (!connection) releaseSlot();
    }
    if (!connection) {
      origin.revoke();
      await mcp.close();
      await transport.close();
    }
  }

  private async serve(
    connection: HttpMcpConnection,
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
  ): Promise<void> {
    if (req.method === 'GET') {
      const release = this.streamLimits.acquire(connection.actorId, connection.address);
      connection.openStreams++;
      res.once('close', () => {
        release();
        connection.openStreams--;
        connection.lastSeen = Date.now();
      });
    }
    await connection.transport.handleRequest(req, res, body);
  }

  private startSweep(): void {
    if (this.sweep) return;
    this.sweep = setInterval(() => {
      const now = Date.now();
      for (const connection of this.connections.values()) {
        if (connection.openStreams === 0 && now - connection.lastSeen > MCP_HTTP_IDLE_MS) {
          void connection.transport.close();
        }
      }
    }, SWEEP_MS);
    this.sweep.unref();
  }

  // Shutdown: every connection's session ends (claims released) while the HTTP server still answers.
  async onModuleDestroy(): Promise<void> {
    if (this.sweep) clearInterval(this.sweep);
    const closing = [...this.connections.values()].map(async (c) => {
      await c.mcp.close();
      await c.transport.close();
    });
    this.connections.clear();
    await Promise.race([Promise.allSettled(closing), new Promise((resolve) => setTimeout(resolve, 3000).unref())]);
  }
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
