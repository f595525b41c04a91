import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolResult,
  CancelledNotification,
  CancelledNotificationSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

import { MAX_STREAM_FRONTIER_PROJECTS, PRIORITIES, SESSION_HEADER } from '@app/contracts';
import type {
  FrontierItemWire,
  FrontierResultWire,
  GateBlockerWire,
  SessionNoticesResponse,
  SessionResponse,
  StreamNotice,
} from '@app/contracts';
import {
  dbClaimResponseSchema,
  dependencyAddSchema,
  dispatchResponseSchema,
  explainResponseSchema,
  frontierItemSchema,
  itemCommentSchema,
  itemDetailSchema,
  ouroborosEntrySchema,
  releaseClaimResponseSchema,
  scheduleResponseSchema,
  scheduleStepSchema,
} from '@app/contracts/mcp';

import { SvcApi } from '../api';
import { ChargeFlowError, runCharge } from '../charge-flow';
import { FollowingEventStream, openFollowingEventStream } from '../event-stream';
import { FrontierMirror } from '../frontier-mirror';
import { FrontierNoticeTracker, noticeEtagFor } from '../frontier-notices';
import { SvcConnectionError, SvcHttpError } from '../http-client';
import type { ScheduleStep } from '@app/contracts';
import { ADAPTER_GUIDES, MCP_PROMPTS, McpPromptName, renderPrompt } from './prompts';
import {
  blockersText,
  claimText,
  compactJson,
  explainText,
  frontierText,
  itemText,
  itemWholeText,
  nextWorkText,
  noticeLine,
  oneLine,
  whyRanked,
} from './text';

// The svc MCP server (issue 29): the frontier, the session's schedule and claims as MCP tools, one executor session
// per MCP connection. Both transports build it here: `svc mcp` (stdio) and the daemon's /mcp (Streamable HTTP).
// Every tool calls the daemon through SvcApi with the caller's own credential, so each rule (gates, claims, WIP
// cap, lanes, project access) is the daemon's and applies unchanged; a refusal is a tool error with its code.

export interface SvcMcpOptions {
  api: SvcApi;
  // The live stream (resource-updated notifications) is read from here with this credential.
  token: string | null;
  // Set when there is no credential: every tool call is this error (not_connected), and no session is registered.
  missingCredential?: string | null;
  // Extra headers of the live stream's requests (the daemon's /mcp: the client address it vouches for).
  streamHeaders?: Record<string, string>;
  // The project scope (--project, SVC_PROJECT, .svc.json): the session's project, the default of every tool.
  project?: string | null;
  // Override what the client reports in initialize (clientInfo.name) and the unknown model.
  harness?: string | null;
  model?: string | null;
  label?: string;
  wipCap?: number;
  // Heartbeat period: the session's claims are renewed while the client is connected.
  heartbeatMs?: number;
  // How a client of this transport names the project, for the refusal of a call that needs one (project_required).
  projectHint?: string;
  // A connection rebuilt by another process (the daemon's /mcp behind several replicas): the executor session it
  // already runs in (resumed, not registered again), where its notices were, and its subscriptions.
  resume?: { sessionId: number | null; noticesAfter: string; subscriptions: string[] } | null;
  // Told when the state a rebuilt connection needs changes: the executor session (registered or replaced), the
  // notices heard, the subscriptions.
  onState?: (state: { sessionId?: number; noticesAfter?: string; subscribed?: string; unsubscribed?: string }) => void;
  version: string;
  // Diagnostics (stderr for stdio: standard output is the protocol).
  log?: (line: string) => void;
}

// What an agent needs to know before its first call: the loop, adapters and entrypoints, claims, the DB claim.
export const MCP_INSTRUCTIONS = [
  'svc is the backlog shared by people and coding agents. Loop: next_work → claim → run the entrypoint → ' +
    'set_status through the gates → say what you did (comment) → release (or done).',
  'Adapters: each item’s stage has an adapter naming the kind of work it needs — refine (write the spec), shepherd ' +
    '(plan an epic), conduct (implement), advance (carry an implementation on), polish (finishing review), usher ' +
    '(deploy), wait (blocked: nothing to do until its blockers clear).',
  'Entrypoints: next_work and claim answer an entrypoint such as "/svc usher ATL-6"; run it as this server’s prompt ' +
    'of the same name (usher with ref ATL-6; advance also takes phase) — it renders the item, the gates ahead and ' +
    'the steps.',
  'Claims: claim holds an item for this connection’s session, renewed while connected and released when it ends ' +
    '(release gives one back; my_work lists them). A claimed item’s status, title, body and sections belong to its ' +
    'holder: others are refused with item_claimed_elsewhere. Results end with notices when the session lost a claim.',
  'Gates: set_status is refused (blocked_by_dependencies) while a gate is unsatisfied; the refusal and explain say ' +
    'what would satisfy each blocker and what to start first.',
  'amend_db_claim: work that changes a governed database declares its mutation (the claim payload), or attests it ' +
    'makes none (none: true with a reason); some stages refuse to move without it.',
  'Comments: comment leaves a note on an item for the people and agents who read it (svc items show, the TUI, ' +
    'get_item); it is not a change of the item, so it is allowed on an item another session holds.',
  'Finding work beyond the schedule: list_items (filters, cursor paging), get_item (the whole item), frontier.',
].join('\n');

// next_work's default number of steps: an agent claims one, and both next_work calls of its loop are read by the
// model (issue 37's loop budget: ≤ 6 KB of tool output; bench/README.md "The agent loop").
export const NEXT_WORK_STEPS = 3;

// A step's next_step in the text's JSON only where it says more than the step's own status, adapter and
// entrypoint (structuredContent keeps it always).
function withoutOwnNextStep<S extends ScheduleStep>(step: S): S | Omit<S, 'next_step'> {
  const next = step.next_step;
  if (next && next.stage === step.status && next.adapter === step.adapter && next.entrypoint === step.entrypoint) {
    const { next_step: _own, ...rest } = step;
    return rest;
  }
  return step;
}

export const MCP_DEFAULT_HEARTBEAT_MS = 30_000;
// Changes arriving within this window are announced once per resource.
export const MCP_NOTIFY_COALESCE_MS = 150;
export const FRONTIER_URI_PREFIX = 'svc://frontier/';
const RESOURCE_NOT_FOUND = -32002;
// A subscribable resource of this server: a project's frontier.
const FRONTIER_URI = /^svc:\/\/frontier\/[a-z0-9][a-z0-9_-]{0,62}$/;
type RequestHandler = (request: unknown, extra: unknown) => Promise<unknown>;

// Projects whose frontier a connection keeps (FrontierMirror) between reads of the resource.
const MIRRORED_PROJECTS = 4;

export const MCP_TOOLS = [
  'next_work',
  'frontier',
  'explain',
  'claim',
  'release',
  'get_item',
  'set_status',
  'create_item',
  'add_dependency',
  'add_note',
  'amend_db_claim',
  'list_items',
  'update_item',
  'my_work',
  'comment',
] as const;

// A harness token the daemon accepts (short, no spaces): "Claude Code" → "claude-code".
export function harnessToken(name: string | undefined | null): string | null {
  if (!name) return null;
  const token = name
    .toLowerCase()
    .replace(/[^a-z0-9._:/@+-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 100)
    .replace(/-+$/, '');
  return token.length > 0 ? token : null;
}

type LooseRegisterTool = (
  name: string,
  config: {
    title: string;
    description: string;
    inputSchema: z.ZodTypeAny;
    outputSchema: z.ZodRawShape;
    annotations: ToolAnnotations;
  },
  callback: (args: unknown, extra: { signal: AbortSignal; requestId: string | number }) => Promise<CallToolResult>,
) => unknown;

type LooseRegisterPrompt = (
  name: string,
  config: { title: string; description: string; argsSchema: z.ZodRawShape },
  callback: (args: { ref: string; phase?: string }) => Promise<{
    description: string;
    messages: { role: 'user'; content: { type: 'text'; text: string } }[];
  }>,
) => unknown;

// What a client may assume of a tool (MCP tool annotations): a read changes nothing; a write says whether calling it
// twice with the same arguments does more than once, and whether it can undo work.
export interface ToolAnnotations {
  readOnlyHint: boolean;
  idempotentHint?: boolean;
  destructiveHint?: boolean;
  openWorldHint: false;
}

const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
const WRITE = (idempotent: boolean, destructive = false): ToolAnnotations => ({
  readOnlyHint: false,
  idempotentHint: idempotent,
  destructiveHint: destructive,
  openWorldHint: false,
});

const ANNOTATIONS: Record<(typeof MCP_TOOLS)[number], ToolAnnotations> = {
  next_work: READ,
  frontier: READ,
  explain: READ,
  get_item: READ,
  list_items: READ,
  // my_work reads, but hearing the lost claims consumes them (the next call tells only newer ones)
  my_work: { ...READ },
  claim: WRITE(false),
  release: WRITE(true, true),
  set_status: WRITE(true),
  create_item: WRITE(false),
  add_dependency: WRITE(true),
  add_note: WRITE(false),
  amend_db_claim: WRITE(true),
  update_item: WRITE(true, true),
  // each call adds another comment
  comment: WRITE(false),
};

// What a tool is given besides its arguments: the call's cancellation, and a way to register what undoes the call's
// effect should the client cancel it (a claim the client never learns of must not stand).
export interface ToolCall {
  signal: AbortSignal;
  onCancel: (undo: () => Promise<unknown>) => void;
}

// How long an answered call can still be cancelled by a notification that crossed the answer on the wire.
const CANCEL_WINDOW_MS = 60_000;

export interface ToolErrorBody {
  code: string;
  message: string;
  [key: string]: unknown;
}

// A refusal as the agent sees it: `code: message`, what would satisfy each blocker, then the daemon's whole body.
export function toolError(body: ToolErrorBody): CallToolResult {
  const lines = [`${body.code}: ${body.message}`];
  if (Array.isArray(body.blockers)) lines.push(...blockersText(body.blockers as GateBlockerWire[]));
  // a move to a stage the workflow lacks (stage_not_in_workflow): the stages it has, in words
  if (Array.isArray(body.stages))
    lines.push(`the stages of workflow ${String(body.workflow_id)}: ${body.stages.join(', ')}`);
  lines.push(JSON.stringify(body));
  return { isError: true, content: [{ type: 'text', text: lines.join('\n') }], _meta: { 'svc/error': body } };
}

export function errorBody(err: unknown): ToolErrorBody {
  if (err instanceof SvcHttpError) return err.body;
  if (err instanceof ChargeFlowError) return { code: err.code, message: err.message };
  if (err instanceof SvcConnectionError) return { code: 'daemon_unreachable', message: err.message };
  return { code: 'internal_error', message: err instanceof Error ? err.message : String(err) };
}

// A client that shows the model only the text still gives it the whole result: the summary, then the compact JSON
// (empty values left out: compactJson).
function withJson(summary: string, value: object, forText: object = value): CallToolResult {
  return {
    content: [{ type: 'text', text: `${summary}\n${compactJson(forText)}` }],
    structuredContent: value as Record<string, unknown>,
  };
}

async function answer<T extends object>(
  work: () => Promise<T>,
  text: (value: T) => string,
  forText?: (value: T) => object,
): Promise<CallToolResult> {
  try {
    const value = await work();
    return withJson(text(value), value, forText?.(value));
  } catch (err) {
    return toolError(errorBody(err));
  }
}

// A tool's arguments as a strict object: an argument the tool does not take is refused (not silently dropped, so
// `create_item {description: …}` does not make an item with an empty body), and the refusal names the arguments
// the tool does take. The SDK answers it as a tool error: `Input validation error: Invalid arguments for tool …`.
export function strictArguments<S extends z.ZodRawShape>(tool: string, shape: S): z.ZodObject<S, 'strict'> {
  const names = Object.keys(shape);
  const takes = names.length > 0 ? `takes only ${names.join(', ')}` : 'takes no arguments';
  return z
    .object(shape, {
      errorMap: (issue, ctx) =>
        issue.code === z.ZodIssueCode.unrecognized_keys
          ? {
              message: `unknown argument${issue.keys.length === 1 ? '' : 's'} ${issue.keys.join(', ')}: ${tool} ${takes}`,
            }
          : { message: ctx.defaultError },
    })
    .strict();
}

const noticesSchema = z
  .object({ lapsed_claims: z.array(z.record(z.unknown())), notices: z.array(z.record(z.unknown())) })
  .optional()
  .describe('what this session should hear of since its last call: claims it lost, others’ changes to its items');

// A fresh schema per argument: one zod instance used twice in a tool becomes a `$ref` in its JSON schema, which
// strict clients refuse.
const refArg = (what = 'public item ref, e.g. ATL-6') => z.string().min(1).max(40).describe(what);
const ref = refArg();
const projectArg = z.string().min(1).max(63).optional().describe('project id (default: the server’s project scope)');
// A read takes any cap as a what-if; next_work and claim run under it, and one above the project policy's is an
// organization admin's (the daemon refuses others with wip_cap_override_forbidden).
const whatIfWipCapArg = z
  .number()
  .int()
  .min(0)
  .max(10_000)
  .optional()
  .describe('what-if WIP cap for this read (default: the project policy’s)');
const wipCapArg = z
  .number()
  .int()
  .min(0)
  .max(10_000)
  .optional()
  .describe('a lower WIP cap than the project policy’s; a higher one only for an organization admin');

export class SvcMcpSession {
  readonly server: McpServer;
  private registration: Promise<SessionResponse> | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  // the last change record this session was told of, and the lapsed claims already reported
  private noticesAfter = '0';
  private readonly lapsedTold = new Set<string>();
  // what undoes each recently answered call, should its cancellation arrive after the answer
  private readonly undoByRequest = new Map<string | number, () => Promise<unknown>>();
  private stream: FollowingEventStream | null = null;
  private streamOpen: Promise<void> | null = null;
  private readonly subscriptions = new Set<string>();
  // the frontier resource's answers, kept current by deltas
  private readonly frontiers = new Map<string, FrontierMirror>();
  // the live stream's frontier notices: which projects it announces, and the newest ETag it named for each (null:
  // unknown, or another wip_cap than the default answer's); forgotten when the stream is not open
  private readonly notices = new FrontierNoticeTracker();
  private readonly announced = new Map<string, string | null>();
  private readonly pending = new Set<string>();
  private flushTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private claimQueue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: SvcMcpOptions) {
    this.server = new McpServer(
      { name: 'svc', version: options.version },
      {
        capabilities: { resources: { subscribe: true, listChanged: false }, tools: {}, prompts: {} },
        instructions: MCP_INSTRUCTIONS,
      },
    );
    this.server.server.oninitialized = () => {
      if (this.options.missingCredential) return;
      void this.ensureSession().catch((err: unknown) =>
        this.log(`session registration failed: ${errorBody(err).message}`),
      );
    };
    this.registerTools();
    this.server.server.setNotificationHandler(CancelledNotificationSchema, (notification) =>
      this.onCancelled(notification),
    );
    this.registerResources();
    this.registerPrompts();
    // The tools and prompts never change while connected, and the resource list (a frontier per project) is not
    // announced: no list_changed notification is ever sent, so none is declared (the SDK declares them for
    // whatever is registered). Resource updates are: subscribe.
    this.server.server.registerCapabilities({
      tools: { listChanged: false },
      prompts: { listChanged: false },
      resources: { subscribe: true, listChanged: false },
    });
  }

  private log(line: string): void {
    this.options.log?.(line);
  }

  private get api(): SvcApi {
    return this.options.api;
  }

  get project(): string | null {
    return this.options.project ?? null;
  }

  get harness(): string {
    return (
      harnessToken(this.options.harness) ?? harnessToken(this.server.server.getClientVersion()?.name) ?? 'mcp-client'
    );
  }

  get model(): string {
    return harnessToken(this.options.model) ?? 'unknown';
  }

  // The executor session of this connection, registered once (on `initialized`, or by the first tool call).
  ensureSession(): Promise<SessionResponse> {
    if (this.closed) return Promise.reject(new ChargeFlowError('session_closed', 'the MCP connection is closing'));
    if (!this.registration) this.nameSession(null);
    this.registration ??= this.resumeOrRegister().then(({ session, resumed }) => {
      this.log(
        `executor session ${session.session_id} (${session.harness} / ${session.model}, lane ${session.lane})${resumed ? ' resumed' : ''}`,
      );
      this.nameSession(session.session_id);
      if (!resumed) {
        this.noticesAfter = '0';
        this.options.onState?.({ sessionId: session.session_id, noticesAfter: '0' });
      }
      const period = this.options.heartbeatMs ?? MCP_DEFAULT_HEARTBEAT_MS;
      const heartbeat = setInterval(() => {
        this.api.heartbeat(session.session_id).catch((err: unknown) => {
          this.log(`heartbeat failed: ${errorBody(err).message}`);
          // Ended elsewhere (`svc sessions end`, an admin): the next tool call registers a new session.
          if (err instanceof SvcHttpError && (err.code === 'session_ended' || err.code === 'session_not_found')) {
            clearInterval(heartbeat);
            if (this.heartbeat === heartbeat) this.heartbeat = null;
            this.registration = null;
          }
        });
      }, period);
      this.heartbeat = heartbeat;
      this.heartbeat.unref();
      return session;
    });
    this.registration.catch(() => {
      this.registration = null;
    });
    return this.registration;
  }

  // A rebuilt connection goes on in the executor session it ran in (its claims stay its own) while that session is
  // live; otherwise (none yet, ended elsewhere) a new one is registered.
  private async resumeOrRegister(): Promise<{ session: SessionResponse; resumed: boolean }> {
    const resume = this.options.resume;
    if (resume?.sessionId != null) {
      const id = resume.sessionId;
      resume.sessionId = null;
      const session = await this.api.session(id).catch(() => null);
      if (session && session.ended_at === null) {
        this.noticesAfter = resume.noticesAfter;
        return { session, resumed: true };
      }
    }
    const session = await this.api.registerSession({
      harness: this.harness,
      model: this.model,
      ...(this.project ? { project: this.project } : {}),
      label: this.options.label ?? 'svc mcp',
    });
    return { session, resumed: false };
  }

  // The session every call of this connection names (x-svc-session), for the daemon's claim rule and record.
  private nameSession(id: number | null): void {
    const headers = (this.api as Partial<SvcApi>).http?.headers;
    if (!headers) return;
    if (id === null) delete headers[SESSION_HEADER];
    else headers[SESSION_HEADER] = String(id);
  }

  get sessionId(): Promise<number> {
    return this.ensureSession().then((s) => s.session_id);
  }

  // Ends the executor session (its claims are released at once), stops the heartbeat and the live stream.
  async close(): Promise<void> {
    if (this.closed) return;
    this.detach();
    // a rebuilt connection ended before it made a call: the executor session it was running in ends
    const resumed = this.options.resume?.sessionId;
    const registration =
      this.registration ?? (resumed != null ? Promise.resolve({ session_id: resumed } as SessionResponse) : null);
    if (registration) {
      try {
        const session = await registration;
        await this.api.endSession(session.session_id);
        this.log(`executor session ${session.session_id} ended`);
      } catch (err) {
        this.log(`ending the session failed: ${errorBody(err).message}`);
      }
    }
  }

  // Stops this process's part of the connection (heartbeat, live stream) and leaves the executor session running:
  // another process serves the connection on (the daemon's /mcp behind several replicas, a replica shutting down).
  detach(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.stream?.close();
  }

  private projectRequired(): SvcHttpError {
    return new SvcHttpError(400, {
      code: 'project_required',
      message: `name a project (the project argument, ${this.options.projectHint ?? STDIO_PROJECT_HINT})`,
    });
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const next = this.claimQueue.then(work, work);
    this.claimQueue = next.catch(() => undefined);
    return next;
  }

  // registerTool with the schemas' types kept to zod's own inference: the SDK's generic signature (zod 3 and 4
  // compatible) makes the type checker spend minutes on shapes this size, for no check the zod types do not make.
  private tool<S extends z.ZodRawShape>(
    name: (typeof MCP_TOOLS)[number],
    config: { title: string; description: string; input: S; output: z.ZodRawShape },
    run: (args: z.objectOutputType<S, z.ZodTypeAny>, call: ToolCall) => Promise<CallToolResult>,
  ): void {
    const register = this.server.registerTool.bind(this.server) as unknown as LooseRegisterTool;
    register(
      name,
      {
        title: config.title,
        description: config.description,
        inputSchema: strictArguments(name, config.input),
        // every result may carry the session's notices (withNotices): declared, or a client validating the
        // structured content against the schema refuses the answer
        outputSchema: { ...config.output, notices: noticesSchema },
        annotations: ANNOTATIONS[name],
      },
      async (args, extra) => {
        if (this.options.missingCredential) {
          return toolError({ code: 'not_connected', message: this.options.missingCredential });
        }
        // every call names this connection's executor session, so the daemon's claim rule and record know it
        await this.ensureSession().catch(() => undefined);
        const undo: (() => Promise<unknown>)[] = [];
        const result = await run(args as z.objectOutputType<S, z.ZodTypeAny>, {
          signal: extra.signal,
          onCancel: (fn) => undo.push(fn),
        });
        const answered = await this.withNotices(result);
        if (undo.length === 0) return answered;
        const undoAll = () => Promise.all(undo.map((fn) => fn().catch(() => undefined)));
        if (extra.signal.aborted) {
          // cancelled while it ran: the SDK sends no answer, so its effect is given back
          await undoAll();
          return toolError({ code: 'cancelled', message: `${name} was cancelled; what it did was given back` });
        }
        // a cancellation that crosses the answer on the wire undoes it too (see onCancelled)
        this.undoByRequest.set(extra.requestId, undoAll);
        setTimeout(() => this.undoByRequest.delete(extra.requestId), CANCEL_WINDOW_MS).unref();
        return answered;
      },
    );
  }

  // The SDK aborts a running call on notifications/cancelled; a call already answered is undone here, for the client
  // rejected it on its side when it sent the cancellation.
  private async onCancelled(notification: CancelledNotification): Promise<void> {
    await (this.server.server as unknown as { _oncancel(n: CancelledNotification): Promise<void> })._oncancel(
      notification,
    );
    const requestId = notification.params.requestId;
    const undo = requestId === undefined ? undefined : this.undoByRequest.get(requestId);
    if (!undo) return;
    this.undoByRequest.delete(requestId!);
    await undo();
  }

  // What the session should hear of since its last call (issue 36): claims it lost (taken over after its lease
  // lapsed, released by an admin's forced write or with its session) and others' changes to items it holds, as a
  // last text block and `notices` in the structured result.
  private async withNotices(result: CallToolResult): Promise<CallToolResult> {
    const registration = this.registration;
    if (!registration || this.closed) return result;
    let heard: SessionNoticesResponse;
    try {
      const session = await registration;
      heard = await this.api.sessionNotices(session.session_id, this.noticesAfter);
    } catch {
      return result;
    }
    if (heard.last_id !== this.noticesAfter) this.options.onState?.({ noticesAfter: heard.last_id });
    this.noticesAfter = heard.last_id;
    const lapsed = heard.lapsed_claims.filter((c) => !this.lapsedTold.has(`${c.item_id}@${c.expired_at}`));
    for (const c of lapsed) this.lapsedTold.add(`${c.item_id}@${c.expired_at}`);
    if (heard.notices.length === 0 && lapsed.length === 0) return result;
    const lines = [
      ...lapsed.map((c) => `claim lost: ${c.item_id} (lease lapsed at ${c.expired_at}; claim it again to go on)`),
      ...heard.notices.map(noticeLine),
    ];
    return {
      ...result,
      content: [...(result.content ?? []), { type: 'text', text: `notices:\n${lines.join('\n')}` }],
      ...(result.structuredContent
        ? {
            structuredContent: {
              ...result.structuredContent,
              notices: { lapsed_claims: lapsed, notices: heard.notices },
            },
          }
        : {}),
    };
  }

  private registerTools(): void {
    this.tool(
      'next_work',
      {
        title: 'Next work for this session',
        description:
          "The session's schedule: the top runnable items of its lane, ranked, each with its adapter, the entrypoint " +
          'to run and why it ranks there. Claim one with claim.',
        input: {
          limit: z.number().int().min(1).max(50).optional().describe('how many steps (default 3)'),
          project: projectArg,
          wip_cap: wipCapArg,
        },
        output: scheduleResponseSchema.extend({
          steps: z.array(scheduleStepSchema.extend({ why: z.string() })),
        }).shape,
      },
      async (args) =>
        answer(
          async () => {
            const schedule = await this.api.schedule({
              session_id: await this.sessionId,
              project: args.project ?? this.project ?? undefined,
              wip_cap: args.wip_cap ?? this.options.wipCap,
            });
            const steps = schedule.steps
              .slice(0, args.limit ?? NEXT_WORK_STEPS)
              .map((s) => ({ ...s, why: whyRanked(s) }));
            return { ...schedule, steps };
          },
          (value) => nextWorkText(value, value.steps),
          // each step's why is its line's words (said once)
          (value) => ({ ...value, steps: value.steps.map(({ why: _why, ...step }) => withoutOwnNextStep(step)) }),
        ),
    );

    const buckets = ['runnable', 'blocked', 'frozen', 'conduct_eligible'] as const;
    this.tool(
      'frontier',
      {
        title: 'Frontier of a project',
        description:
          'Runnable, blocked and frozen counts of the project’s charge frontier and the top items of a bucket.',
        input: {
          project: projectArg,
          bucket: z.enum(buckets).optional().describe('which bucket to list (default runnable)'),
          limit: z.number().int().min(1).max(100).optional().describe('how many items (default 10)'),
          wip_cap: whatIfWipCapArg,
        },
        output: {
          project: z.string(),
          wip_cap: z.number(),
          wip_active: z.number(),
          counts: z.object({
            runnable: z.number(),
            blocked: z.number(),
            frozen: z.number(),
            conduct_eligible: z.number(),
          }),
          bucket: z.enum(buckets),
          items: z.array(frontierItemSchema),
        },
      },
      async (args) =>
        answer(
          async () => {
            const project = args.project ?? this.project;
            if (!project) throw this.projectRequired();
            const read = await this.api.frontier({ project, wip_cap: args.wip_cap ?? this.options.wipCap });
            if (read.notModified) throw new Error('unexpected 304');
            const body = read.body;
            const bucket = args.bucket ?? 'runnable';
            return {
              project,
              wip_cap: body.wip_cap,
              wip_active: body.wip_active,
              counts: {
                runnable: body.runnable.length,
                blocked: body.blocked.length,
                frozen: body.frozen.length,
                conduct_eligible: body.conduct_eligible.length,
              },
              bucket,
              items: body[bucket].slice(0, args.limit ?? 10),
            };
          },
          (v) => frontierText(v.project, v.counts, v.bucket, v.items),
        ),
    );

    this.tool(
      'explain',
      {
        title: 'Why an item waits',
        description:
          'Why an item is runnable, blocked or frozen, down to each unsatisfied fact and what would satisfy it; ' +
          'unblock_roots are what to start first. For a runnable item, why it ranks where it does.',
        input: { item: ref, wip_cap: whatIfWipCapArg },
        output: explainResponseSchema.shape,
      },
      async (args) => answer(() => this.api.explain(args.item, { wip_cap: args.wip_cap }), explainText),
    );

    this.tool(
      'claim',
      {
        title: 'Claim work',
        description:
          'Charge the top item of this session’s schedule, or the named one: an atomic claim under the WIP cap. ' +
          'Answers the entrypoint to run and the claim (held while this connection lives; release gives it back).',
        input: { item: ref.optional(), project: projectArg, wip_cap: wipCapArg },
        output: dispatchResponseSchema.shape,
      },
      // One claim at a time per connection: two concurrent calls of one agent get two items.
      (args, call) =>
        this.serialized(async () => {
          try {
            if (call.signal.aborted) return toolError({ code: 'cancelled', message: 'the claim was cancelled' });
            const session = await this.sessionId;
            const reports: string[] = [];
            const outcome = await runCharge(
              this.api,
              {
                project: args.project ?? null,
                item: args.item ?? null,
                wipCap: args.wip_cap ?? this.options.wipCap,
                session,
                harness: this.harness,
                model: this.model,
                workspaceProject: this.project,
                skipOwnClaims: true,
                claimUnoffered: true,
              },
              {
                confirm: () => Promise.resolve(true),
                report: (line) => reports.push(line.trim()),
                // the agent runs the entrypoint itself
                runDispatcher: () => Promise.resolve(0),
              },
            );
            if (outcome.dispatch) {
              // a client that cancels this call never learns of the claim: then it must not stand
              const item = outcome.dispatch.item_id;
              call.onCancel(() => this.api.releaseClaim(session, item));
              return withJson(claimText(outcome.dispatch), outcome.dispatch);
            }
            // The daemon's refusal when it gave one (wip_cap_reached, item_already_claimed, lane_mismatch, …), else
            // the flow's decision (no_runnable_items, requested_item_unavailable, …).
            const refusal = outcome.error ?? daemonRefusal(outcome.extra.error);
            const reason = refusal?.code ?? outcome.decision.reason;
            return toolError({
              code: reason,
              message: refusal?.message ?? (reports.join('; ') || reasonMessage(reason)),
              decision: outcome.decision,
              ...outcome.extra,
            });
          } catch (err) {
            return toolError(errorBody(err));
          }
        }),
    );

    this.tool(
      'release',
      {
        title: 'Release a claim',
        description: 'Give back this session’s claim on an item (released: false when the session held none).',
        input: { item: ref },
        output: releaseClaimResponseSchema.shape,
      },
      async (args) =>
        answer(
          async () => this.api.releaseClaim(await this.sessionId, args.item),
          (r) => (r.released ? `released ${r.item_id}` : `session ${r.session_id} held no claim on ${r.item_id}`),
        ),
    );

    this.tool(
      'get_item',
      {
        title: 'Read an item',
        description:
          'An item whole: its fields, body and sections, its dependencies both ways (with gate point and whether ' +
          'each is satisfied), who holds its claim, and its last changes (who changed what).',
        input: { item: ref },
        output: itemDetailSchema.extend({
          dependencies: z.array(
            z.object({
              direction: z.string(),
              other_item: z.string().nullable(),
              other_status: z.string().nullable(),
              gate_point: z.string(),
              satisfaction: z.string(),
              satisfied: z.boolean(),
            }),
          ),
          claim: z
            .object({ session_id: z.number(), harness: z.string(), model: z.string(), expires_at: z.string() })
            .nullable(),
          last_changes: z.array(
            z.object({
              at: z.string(),
              actor: z.string().nullable(),
              action: z.string(),
              field: z.string().nullable(),
            }),
          ),
        }).shape,
      },
      async (args) =>
        answer(async () => {
          const item = await this.api.item(args.item);
          const [deps, claims, history] = await Promise.all([
            this.api.dependencies(item.item_id).catch(() => ({ dependencies: [] })),
            this.api.claims(item.project).catch(() => ({ claims: [] })),
            this.api.itemHistory(item.item_id, { limit: 5 }).catch(() => ({ changes: [] })),
          ]);
          const holder = claims.claims.find((c) => c.item_id === item.item_id);
          return {
            ...item,
            dependencies: deps.dependencies.map((d) => ({
              direction: d.direction,
              other_item: d.other_item,
              other_status: d.other_status,
              gate_point: d.gate_point,
              satisfaction: d.satisfaction,
              satisfied: d.satisfied,
            })),
            claim: holder
              ? {
                  session_id: holder.session_id,
                  harness: holder.harness,
                  model: holder.model,
                  expires_at: holder.expires_at,
                }
              : null,
            last_changes: history.changes.map((c) => ({ at: c.at, actor: c.actor, action: c.action, field: c.field })),
          };
        }, itemWholeText),
    );

    this.tool(
      'set_status',
      {
        title: 'Move an item',
        description:
          'Set an item’s workflow status. The gates are enforced: a refusal (blocked_by_dependencies) lists each ' +
          'blocker and what would satisfy it.',
        input: { item: ref, status: z.string().min(1).max(100).describe('target stage, e.g. implementing') },
        output: itemDetailSchema.shape,
      },
      async (args) => answer(() => this.api.setItemStatus(args.item, args.status), itemText),
    );

    this.tool(
      'create_item',
      {
        title: 'Create an item',
        description: 'A new backlog item in the project.',
        input: {
          title: z.string().min(1).max(10_000).describe('one line naming the work'),
          project: projectArg,
          priority: z.enum(PRIORITIES).optional().describe('high, medium or low (default medium)'),
          status: z.string().min(1).max(100).optional().describe('start stage (default the initial stage)'),
          workflow: z.string().min(1).max(63).optional().describe('workflow id, e.g. issue or epic (default issue)'),
          body: z.string().optional().describe('the description (Markdown)'),
          spec: z.string().optional().describe('the spec (Markdown), shown under its own heading in the body'),
        },
        output: itemDetailSchema.shape,
      },
      async (args) =>
        answer(async () => {
          const project = args.project ?? this.project;
          if (!project) throw this.projectRequired();
          const body: Record<string, unknown> = { project, title: args.title };
          for (const key of ['priority', 'status', 'workflow', 'body', 'spec'] as const) {
            if (args[key] !== undefined) body[key] = args[key];
          }
          return this.api.createItem(body);
        }, itemText),
    );

    this.tool(
      'add_dependency',
      {
        title: 'Add a dependency',
        description: 'The dependent item waits for the blocker at a gate point (default activation).',
        input: {
          dependent: refArg('the item that waits, e.g. ATL-6'),
          blocker: refArg('the item it waits for, e.g. ATL-5'),
          gate_point: z
            .enum(['activation', 'integration', 'closure', 'coordination_only'])
            .optional()
            .describe(
              'where the dependent waits: activation (before implementing), integration (before release), ' +
                'closure (before done), coordination_only (informational); default activation',
            ),
          satisfaction: z.string().min(1).max(200).optional().describe('default: the blocker is done'),
          rationale: z.string().max(10_000).optional().describe('why it waits, for the people reading the graph'),
        },
        output: dependencyAddSchema.shape,
      },
      async (args) =>
        answer(
          async () => {
            const body: Record<string, unknown> = { blocker: args.blocker, session_id: await this.sessionId };
            for (const key of ['gate_point', 'satisfaction', 'rationale'] as const) {
              if (args[key] !== undefined) body[key] = args[key];
            }
            return this.api.addDependency(args.dependent, body);
          },
          (d) =>
            `${d.created ? 'added' : 'already there'}: ${d.dependency.dependent} waits on ${d.dependency.blocker} at ${d.dependency.gate_point} (${d.dependency.satisfaction})`,
        ),
    );

    this.tool(
      'add_note',
      {
        title: 'Add an ouroboros note',
        description:
          'An observation for the people who improve the workflow (an ouroboros entry), signed by this session.',
        input: {
          category: z.string().min(1).max(100).describe('e.g. friction, bug, idea'),
          body: z.string().min(1).max(100_000).describe('the observation and what would improve the workflow'),
          context: z.string().max(100_000).optional().describe('where it was seen, e.g. an item ref'),
        },
        output: ouroborosEntrySchema.shape,
      },
      async (args) =>
        answer(
          async () => {
            const session = await this.ensureSession();
            return this.api.recordOuroboros({
              agent: `${session.harness}/${session.model}#${session.session_id}`.slice(0, 200),
              category: args.category,
              body: args.body,
              ...(args.context !== undefined ? { context: args.context } : {}),
            });
          },
          (e) => `ouroboros entry ${e.id} (${e.category}) recorded`,
        ),
    );

    this.tool(
      'amend_db_claim',
      {
        title: 'Amend the DB claim',
        description:
          'Declare the item’s governed database mutation (claim: the profile and attestation payload), or attest ' +
          'that it makes none (none: true, with a reason).',
        input: {
          item: ref,
          claim: z.record(z.unknown()).optional().describe('the DB claim payload (state declared, …)'),
          none: z.boolean().optional().describe('the negative claim shortcut: no governed DB work'),
          reason: z.string().max(10_000).optional().describe('why (required in spirit with none: true)'),
        },
        output: dbClaimResponseSchema.shape,
      },
      async (args) =>
        answer(
          async () => {
            const session_id = await this.sessionId;
            if (args.none) return this.api.negativeDbClaim(args.item, { reason: args.reason }, { session_id });
            if (!args.claim) throw new ChargeFlowError('invalid_arguments', 'give claim, or none: true');
            return this.api.amendDbClaim(args.item, args.claim, { session_id, reason: args.reason });
          },
          (c) => `${c.item_id}: DB claim ${c.claim.state ?? 'unset'} (${c.reviewed ? 'reviewed' : c.reviewed_reason})`,
        ),
    );

    this.tool(
      'list_items',
      {
        title: 'List and search items',
        description:
          'Items of a project (any stage, not only the frontier), filtered and paged: pass next_cursor back as ' +
          'cursor for the next page. get_item reads one in full.',
        input: {
          project: projectArg,
          status: z
            .array(z.string().min(1).max(63))
            .max(30)
            .optional()
            .describe('only items at these stages, e.g. ["planned", "implementing"]'),
          priority: z.enum(PRIORITIES).optional().describe('only items of this priority'),
          text: z
            .string()
            .min(1)
            .max(200)
            .optional()
            .describe('a word or phrase of the title or body (case-insensitive), or a ref'),
          claimed: z
            .boolean()
            .optional()
            .describe('true: only items someone holds a live claim on; false: only unclaimed'),
          blocked: z
            .boolean()
            .optional()
            .describe('true: only items with the operator block flag; false: only without'),
          limit: z.number().int().min(1).max(100).optional().describe('page size (default 25)'),
          cursor: z.string().max(40).optional().describe('next_cursor of the previous page'),
        },
        output: {
          project: z.string(),
          total: z.number(),
          items: z.array(
            z.object({
              item_id: z.string(),
              title: z.string(),
              status: z.string(),
              priority: z.string(),
              blocked: z.boolean(),
              frozen: z.boolean(),
              updated_at: z.string(),
            }),
          ),
          next_cursor: z.string().nullable(),
        },
      },
      async (args) =>
        answer(
          async () => {
            const project = args.project ?? this.project;
            if (!project) throw this.projectRequired();
            const offset = args.cursor === undefined ? 0 : decodeCursor(args.cursor);
            const limit = args.limit ?? 25;
            const query: Record<string, string | number> = { project, limit, offset };
            if (args.status) query.status = args.status.join(',');
            if (args.priority) query.priority = args.priority;
            if (args.text) query.q = args.text;
            if (args.claimed !== undefined) query.claimed = args.claimed ? '1' : '0';
            if (args.blocked !== undefined) query.blocked = args.blocked ? '1' : '0';
            const page = await this.api.items(query);
            const end = offset + page.items.length;
            return {
              project,
              total: page.total,
              items: page.items.map((i) => ({
                item_id: i.item_id,
                title: i.title,
                status: i.status,
                priority: i.priority,
                blocked: i.blocked === 1,
                frozen: i.frozen === 1,
                updated_at: i.updated_at,
              })),
              next_cursor: end < page.total && page.items.length > 0 ? encodeCursor(end) : null,
            };
          },
          (v) =>
            [
              `${v.project}: ${v.items.length} of ${v.total} item${v.total === 1 ? '' : 's'}${v.next_cursor ? ` (more: cursor ${v.next_cursor})` : ''}`,
              ...v.items.map(
                (i) =>
                  `- ${i.item_id} [${i.status}, ${i.priority}${i.blocked ? ', blocked' : ''}] ${oneLine(i.title, 80)}`,
              ),
            ].join('\n'),
        ),
    );

    this.tool(
      'update_item',
      {
        title: 'Change an item',
        description:
          'Change an item’s title, priority, body or named sections (a section set to null is removed). A claimed ' +
          'item’s title, body and sections belong to its holder (item_claimed_elsewhere for others). Answers the item.',
        input: {
          item: ref,
          title: z.string().min(1).max(10_000).optional().describe('the new title (one line)'),
          priority: z.enum(PRIORITIES).optional().describe('the new priority'),
          body: z.string().max(1_000_000).optional().describe('the new stored body text (Markdown); replaces the old'),
          sections: z
            .record(z.string().max(1_000_000).nullable())
            .optional()
            .describe('named Markdown sections to write, e.g. {"acceptance": "…"}; null removes a section'),
        },
        output: itemDetailSchema.shape,
      },
      async (args) =>
        answer(async () => {
          const fields = (['title', 'priority', 'body'] as const).filter((f) => args[f] !== undefined);
          const sections = Object.entries(args.sections ?? {});
          if (fields.length === 0 && sections.length === 0) {
            throw new ChargeFlowError('invalid_arguments', 'give title, priority, body or sections to change');
          }
          for (const field of fields) await this.api.setItemField(args.item, field, { value: args[field] });
          for (const [name, content] of sections) {
            if (content === null) await this.api.deleteSection(args.item, name);
            else await this.api.putSection(args.item, name, { content });
          }
          return this.api.item(args.item);
        }, itemText),
    );

    this.tool(
      'comment',
      {
        title: 'Comment on an item',
        description:
          'Add a comment to an item: a note for the people and agents who read it (svc items show, the TUI’s detail ' +
          'pane, get_item’s comments, newest first). Not a change of the item: allowed on an item another session ' +
          'holds. Answers the comment.',
        input: {
          item: ref,
          body: z
            .string()
            .min(1)
            .max(512 * 1024)
            .describe('the comment (Markdown; newlines allowed; at most 512 KiB)'),
        },
        output: itemCommentSchema.shape,
      },
      async (args) =>
        answer(
          () => this.api.addComment(args.item, args.body),
          (c) => `commented on ${c.item_id} (comment ${c.id})`,
        ),
    );

    this.tool(
      'my_work',
      {
        title: 'What this session holds',
        description:
          'The claims this connection’s session holds (each with its entrypoint and expiry; renewed while connected) ' +
          'and the claims it lost since the last call (taken over, released by someone else, or lapsed).',
        input: {},
        output: {
          session_id: z.number(),
          lane: z.string(),
          claims: z.array(
            z.object({
              item_id: z.string(),
              project: z.string(),
              adapter: z.string().nullable(),
              entrypoint: z.string().nullable(),
              expires_at: z.string(),
            }),
          ),
        },
      },
      async () =>
        answer(
          async () => {
            const session = await this.api.session(await this.sessionId);
            return {
              session_id: session.session_id,
              lane: session.lane,
              claims: session.claims.map((c) => ({
                item_id: c.item_id,
                project: c.project,
                adapter: c.adapter,
                entrypoint: c.entrypoint,
                expires_at: c.expires_at,
              })),
            };
          },
          (v) =>
            [
              `session ${v.session_id} (lane ${v.lane}) holds ${v.claims.length} claim${v.claims.length === 1 ? '' : 's'}`,
              ...v.claims.map(
                (c) =>
                  `- ${c.item_id} (${c.project}) until ${c.expires_at}${c.entrypoint ? ` · run ${c.entrypoint}` : ''}`,
              ),
            ].join('\n'),
        ),
    );
  }

  // The seed's dispatch entrypoints (`/svc usher ATL-6`, `/svc advance ATL-6 implementation`) as prompts: the
  // client shows them as slash commands; each renders what its adapter asks of the agent for that item.
  private registerPrompts(): void {
    for (const name of MCP_PROMPTS) {
      const guide = ADAPTER_GUIDES[name];
      const args = {
        ref: z.string().min(1).max(40).describe('public item ref, e.g. ATL-6'),
        ...(name === 'advance'
          ? { phase: z.string().max(100).optional().describe('the phase to advance (default implementation)') }
          : {}),
      };
      (this.server.registerPrompt as unknown as LooseRegisterPrompt).call(
        this.server,
        name,
        {
          title: guide.title,
          description: `${guide.description} (svc entrypoint /svc ${name} <ref>)`,
          argsSchema: args,
        },
        async (input: { ref: string; phase?: string }) => ({
          description: `${guide.title}: ${input.ref}`,
          messages: [{ role: 'user', content: { type: 'text', text: await this.promptText(name, input) } }],
        }),
      );
    }
  }

  // A prompt for an item the caller cannot read still renders: the refusal, in words, instead of the item.
  private async promptText(name: McpPromptName, input: { ref: string; phase?: string }): Promise<string> {
    if (this.options.missingCredential) return this.options.missingCredential;
    let item;
    try {
      item = await this.api.item(input.ref);
    } catch (err) {
      const body = errorBody(err);
      return `svc could not read ${input.ref} (${body.code}: ${body.message}); nothing to ${name}.`;
    }
    const [workflow, explain] = await Promise.all([
      this.api
        .workflowVersion(item.workflow_id, item.workflow_version)
        .then((w) => w.definition)
        .catch(() => null),
      this.api.explain(item.item_id).catch(() => null),
    ]);
    return renderPrompt({ prompt: name, phase: input.phase || undefined, item, workflow, explain });
  }

  // The frontier of each project the caller can see, as a resource; a subscribed client is told when it changes.
  private registerResources(): void {
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
      // only this server's own resources: a frontier URI of a project id
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

  // The frontier answer this connection holds for a project, kept current by deltas; each read after the first
  // fetches only what changed (nothing when the live stream's newest notice named the answer held).
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
    const bucket = params.get('bucket') as FrontierBucket | null;
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

  // The projects whose frontier notices the stream asks for: those of the subscribed frontier resources (the daemon
  // computes a followed project's frontier after every change), the first MAX_STREAM_FRONTIER_PROJECTS of them; the others'
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

  // One live stream per connection, opened by the first subscription; the subscribe answer waits until it is open
  // (or 5 s), so a change made after the answer is announced. A later (un)subscription changes the projects it
  // follows: a new connection replaces it once open (openFollowingEventStream); the old one announces the changes
  // meanwhile, by their change notices.
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
type FrontierBucket = (typeof FRONTIER_BUCKETS)[number];
const FRONTIER_PAGE_URI = /^svc:\/\/frontier\/([a-z0-9][a-z0-9_-]{0,62})\?(.{0,400})$/;
// The frontier resource in pages of bounded size (a 3,000-item project's whole frontier is about 1 MB, 250k
// tokens): the first read carries every bucket's first items within FRONTIER_FIRST_BUCKET_BYTES each, and each
// bucket's pages FRONTIER_PAGE_BYTES at most (an item larger than that alone is a page of one).
export const FRONTIER_PAGE_BYTES = 64_000;
export const FRONTIER_FIRST_BUCKET_BYTES = 14_000;

interface FrontierPages {
  first: Record<string, unknown>;
  page(bucket: FrontierBucket, offset: number): Record<string, unknown>;
}

function frontierPages(project: string, answer: FrontierResultWire): FrontierPages {
  const uriOf = (bucket: FrontierBucket, offset: number) =>
    `${FRONTIER_URI_PREFIX}${project}?bucket=${bucket}&cursor=${encodeCursor(offset)}`;
  // the items of a bucket from offset that fit within budget bytes (at least one), and where the next page starts
  const slice = (bucket: FrontierBucket, offset: number, budget: number) => {
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

// A list_items cursor: where the next page starts, opaque to the agent.
function encodeCursor(offset: number): string {
  return Buffer.from(`o:${offset}`).toString('base64url');
}

function decodeCursor(cursor: string): number {
  const match = /^o:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw new ChargeFlowError('invalid_cursor', 'cursor is not a next_cursor list_items answered');
  return Number(match[1]);
}

export const STDIO_PROJECT_HINT = 'or start the server with --project, SVC_PROJECT or .svc.json';

function daemonRefusal(error: unknown): { code: string; message: string } | null {
  if (typeof error !== 'object' || error === null) return null;
  const { code, message } = error as Record<string, unknown>;
  return typeof code === 'string' && typeof message === 'string' ? { code, message } : null;
}

function reasonMessage(reason: string): string {
  switch (reason) {
    case 'no_runnable_items':
      return 'nothing runnable for this session';
    case 'requested_item_unavailable':
      return 'the item is not runnable for this session (blocked, frozen, terminal, claimed elsewhere or another lane)';
    case 'wait_adapter_encountered':
      return 'the top item is a wait step: its blockers must clear first';
    default:
      return reason;
  }
}
