import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

import { MAX_STREAM_FRONTIER_PROJECTS } from '@app/contracts';
import type { FrontierItemWire, FrontierResultWire, StreamNotice } from '@app/contracts';

import { SvcApi } from '../api';
import { FollowingEventStream, openFollowingEventStream } from '../event-stream';
import { FrontierMirror } from '../frontier-mirror';
import { FrontierNoticeTracker, noticeEtagFor } from '../frontier-notices';
import { SvcHttpError } from '../http-client';
import { decodeCursor, encodeCursor } from './cursor';
import { errorBody } from './tools';

// Changes arriving within this window are announced once per resource.
export const MCP_NOTIFY_COALESCE_MS = 150;
export const FRONTIER_URI_PREFIX = 'svc://frontier/';
const RESOURCE_NOT_FOUND = -32002;
const FRONTIER_URI = /^svc:\/\/frontier\/[a-z0-9][a-z0-9_-]{0,62}$/;
type RequestHandler = (request: unknown, extra: unknown) => Promise<unknown>;

const MIRRORED_PROJECTS = 4;

export interface FrontierResourceOptions {
  server: McpServer;
  api: SvcApi;
  token: string | null;
  streamHeaders?: Record<string, string>;
  wipCap?: number;
  onState?: (state: { subscribed?: string; unsubscribed?: string }) => void;
  log: (line: string) => void;
}

export class FrontierResource {
  private stream: FollowingEventStream | null = null;
  private streamOpen: Promise<void> | null = null;
  private readonly subscriptions = new Set<string>();
  private readonly frontiers = new Map<string, FrontierMirror>();
  private readonly notices = new FrontierNoticeTracker();
  private readonly announced = new Map<string, string | null>();
  private readonly pending = new Set<string>();
  private flushTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly options: FrontierResourceOptions) {}

  private get server(): McpServer {
    return this.options.server;
  }

  private get api(): SvcApi {
    return this.options.api;
  }

  private log(line: string): void {
    this.options.log(line);
  }

  close(): void {
    this.closed = true;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.stream?.close();
  }

  register(): void {
    this.server.registerResource(
      'frontier',
      new ResourceTemplate(`${FRONTIER_URI_PREFIX}{project}`, {
        list: async () => {
          const { projects } = await this.api.projects();
          return {
            resources: projects.map((p) => ({
              uri: `${FRONTIER_URI_PREFIX}${p.id}`,
              name: `frontier of ${p.id}`,
              mimeType: 'application/json',
            })),
          };
        },
      }),
      {
        title: 'Charge frontier',
        description:
          'The project’s frontier (runnable, blocked, frozen): the counts and the first items of each bucket; ' +
          '`next` names the URI of each bucket’s next page (svc://frontier/<project>?bucket=…&cursor=…). ' +
          'Subscribe to be told when it changes.',
        mimeType: 'application/json',
      },
      async (uri, variables) => {
        const answer = await this.frontierAnswer(String(variables.project));
        return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(answer.first) }] };
      },
    );

    // An unknown resource is -32002 (MCP "Resource not found"), whether no template matches its URI or the project
    // is none the caller can read; the SDK answers the one -32602 and the other -32603.
    const handlers = (this.server.server as unknown as { _requestHandlers: Map<string, RequestHandler> })
      ._requestHandlers;
    const read = handlers.get('resources/read');
    if (read) {
      this.server.server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
        try {
          // a page of one bucket (the SDK's URI templates do not match optional query parameters)
          const paged = FRONTIER_PAGE_URI.exec(request.params.uri);
          if (paged) return (await this.frontierPage(request.params.uri, paged[1], paged[2])) as never;
          return (await read(request, extra)) as never;
        } catch (err) {
          const gone =
            (err instanceof McpError && err.code === -32602 && /not found/.test(err.message)) ||
            (err instanceof SvcHttpError && err.status === 404);
          if (gone) throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${request.params.uri}`);
          throw err;
        }
      });
    }

    this.server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
      if (!FRONTIER_URI.test(request.params.uri)) {
        throw new McpError(
          RESOURCE_NOT_FOUND,
          `Resource not found: ${request.params.uri} (this server has svc://frontier/<project>)`,
        );
      }
      this.subscriptions.add(request.params.uri);
      this.options.onState?.({ subscribed: request.params.uri });
      this.stream?.follow(this.followed());
      await this.openStream();
      return {};
    });
    this.server.server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
      this.subscriptions.delete(request.params.uri);
      this.options.onState?.({ unsubscribed: request.params.uri });
      this.stream?.follow(this.followed());
      return {};
    });
  }

  // The subscriptions of a connection another process took (the daemon's /mcp: the replica holding the client's
  // GET stream is the one whose notifications reach it): follow exactly these.
  setSubscriptions(uris: string[]): void {
    if (this.closed) return;
    const next = uris.filter((u) => FRONTIER_URI.test(u));
    if (next.length === this.subscriptions.size && next.every((u) => this.subscriptions.has(u))) return;
    this.subscriptions.clear();
    for (const uri of next) this.subscriptions.add(uri);
    this.stream?.follow(this.followed());
    if (this.subscriptions.size > 0) void this.openStream();
  }

  private async frontierAnswer(project: string): Promise<FrontierPages> {
    let mirror = this.frontiers.get(project);
    if (mirror === undefined) {
      mirror = new FrontierMirror(this.api, { project, wip_cap: this.options.wipCap });
      this.frontiers.set(project, mirror);
      while (this.frontiers.size > MIRRORED_PROJECTS) this.frontiers.delete(this.frontiers.keys().next().value!);
    }
    await mirror.notice(this.announced.get(project) ?? null);
    return frontierPages(project, mirror.answer!);
  }

  private async frontierPage(uri: string, project: string, query: string) {
    const params = new URLSearchParams(query);
    const bucket = params.get('bucket') as ResourceBucket | null;
    const unknown = [...params.keys()].filter((k) => k !== 'bucket' && k !== 'cursor');
    if (bucket === null || !FRONTIER_BUCKETS.includes(bucket) || unknown.length > 0) {
      throw new McpError(
        RESOURCE_NOT_FOUND,
        `Resource not found: ${uri} (a page is svc://frontier/<project>?bucket=<${FRONTIER_BUCKETS.join('|')}>&cursor=<next>)`,
      );
    }
    const cursor = params.get('cursor');
    let offset = 0;
    if (cursor !== null) {
      try {
        offset = decodeCursor(cursor);
      } catch {
        throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri} (the cursor is not one a page named)`);
      }
    }
    const answer = await this.frontierAnswer(project);
    const text = JSON.stringify(answer.page(bucket, offset));
    return { contents: [{ uri, mimeType: 'application/json', text }] };
  }

  // Subscribed projects are computed by the daemon after every change; past MAX_STREAM_FRONTIER_PROJECTS the others'
  // change notices still announce their resources (changed, ETag unknown).
  private followed(): string[] {
    const projects: string[] = [];
    for (const uri of this.subscriptions) {
      if (uri.startsWith(FRONTIER_URI_PREFIX) && projects.length < MAX_STREAM_FRONTIER_PROJECTS) {
        projects.push(uri.slice(FRONTIER_URI_PREFIX.length));
      }
    }
    return projects;
  }

  // The subscribe answer waits until the stream is open (or 5 s), so a change made after the answer is announced.
  private openStream(): Promise<void> {
    this.streamOpen ??= new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 5000);
      timer.unref();
      this.stream = openFollowingEventStream({
        baseUrl: this.api.baseUrl,
        token: this.options.token,
        headers: this.options.streamHeaders,
        frontier: this.followed(),
        onNotice: (notice) => this.onNotice(notice),
        onStatus: (status, detail) => {
          // a new connection (perhaps to an older replica), or none: what was announced is no longer known
          this.notices.reset();
          this.announced.clear();
          if (status === 'open') {
            clearTimeout(timer);
            resolve();
          }
          if (status === 'closed' && detail?.error) this.log(`live stream closed: ${errorBody(detail.error).message}`);
        },
      });
    });
    return this.streamOpen;
  }

  private onNotice(notice: StreamNotice): void {
    // Reading the frontier records FrontierComputed: announcing it would make every reader read again, forever. A
    // project's other change notices move nothing once its frontier notices (with the new ETag) come.
    const move = this.notices.move(notice);
    if (move === null) return;
    const project = move.project;
    if (move.announced && project !== null) {
      const etag = noticeEtagFor({ wip_cap: this.options.wipCap }, move.etag);
      this.announced.set(project, etag);
      // the answer this connection last read is current: its reader has nothing new to read
      if (etag !== null && this.frontiers.get(project)?.etag === etag) return;
    }
    for (const uri of this.subscriptions) {
      if (!uri.startsWith(FRONTIER_URI_PREFIX)) continue;
      if (project === null || uri === `${FRONTIER_URI_PREFIX}${project}`) this.pending.add(uri);
    }
    if (this.pending.size === 0 || this.flushTimer) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      const uris = [...this.pending];
      this.pending.clear();
      for (const uri of uris) {
        this.server.server.sendResourceUpdated({ uri }).catch((err: unknown) => {
          this.log(`resource-updated notification failed: ${errorBody(err).message}`);
        });
      }
    }, MCP_NOTIFY_COALESCE_MS);
  }
}

const FRONTIER_BUCKETS = ['runnable', 'blocked', 'frozen', 'conduct_eligible'] as const;
type ResourceBucket = (typeof FRONTIER_BUCKETS)[number];
const FRONTIER_PAGE_URI = /^svc:\/\/frontier\/([a-z0-9][a-z0-9_-]{0,62})\?(.{0,400})$/;
// The frontier resource in pages of bounded size (a 3,000-item project's whole frontier is about 1 MB, 250k
// tokens): the first read carries every bucket's first items within FRONTIER_FIRST_BUCKET_BYTES each, and each
// bucket's pages FRONTIER_PAGE_BYTES at most (an item larger than that alone is a page of one).
export const FRONTIER_PAGE_BYTES = 64_000;
export const FRONTIER_FIRST_BUCKET_BYTES = 14_000;

interface FrontierPages {
  first: Record<string, unknown>;
  page(bucket: ResourceBucket, offset: number): Record<string, unknown>;
}

function frontierPages(project: string, answer: FrontierResultWire): FrontierPages {
  const uriOf = (bucket: ResourceBucket, offset: number) =>
    `${FRONTIER_URI_PREFIX}${project}?bucket=${bucket}&cursor=${encodeCursor(offset)}`;
  // the items of a bucket from offset that fit within budget bytes (at least one), and where the next page starts
  const slice = (bucket: ResourceBucket, offset: number, budget: number) => {
    const all = answer[bucket];
    const items: FrontierItemWire[] = [];
    let bytes = 0;
    for (let i = offset; i < all.length; i++) {
      const size = Buffer.byteLength(JSON.stringify(all[i])) + 1;
      if (items.length > 0 && bytes + size > budget) break;
      items.push(all[i]);
      bytes += size;
    }
    const end = offset + items.length;
    return { items, next: end < all.length ? uriOf(bucket, end) : null };
  };
  const counts = Object.fromEntries(FRONTIER_BUCKETS.map((b) => [b, answer[b].length]));
  const firsts = Object.fromEntries(FRONTIER_BUCKETS.map((b) => [b, slice(b, 0, FRONTIER_FIRST_BUCKET_BYTES)]));
  return {
    first: {
      project,
      wip_cap: answer.wip_cap,
      wip_active: answer.wip_active,
      counts,
      ...Object.fromEntries(FRONTIER_BUCKETS.map((b) => [b, firsts[b].items])),
      next: Object.fromEntries(FRONTIER_BUCKETS.map((b) => [b, firsts[b].next])),
    },
    page: (bucket, offset) => {
      const { items, next } = slice(bucket, Math.min(offset, answer[bucket].length), FRONTIER_PAGE_BYTES - 1_000);
      return { project, bucket, total: answer[bucket].length, offset, items, next };
    },
  };
}
