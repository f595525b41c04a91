import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  CallToolResult,
  CancelledNotification,
  CancelledNotificationSchema,
  GetPromptRequestSchema,
  GetPromptResult,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

import { SESSION_HEADER } from '@app/contracts';
import type { SessionNoticesResponse, SessionResponse } from '@app/contracts';

import { SvcApi } from '../api';
import { ChargeFlowError } from '../charge-flow';
import { SvcHttpError } from '../http-client';
import { FrontierResource } from './frontier-resource';
import { MCP_PROMPT_LIST, promptArguments } from './prompt-list';
import { McpPromptName, renderPrompt } from './prompts';
import { noticeLine } from './text';
import { errorBody, ToolContext, toolError } from './tools';
import { callFailed, checkAnswer, checkArguments, findTool, REGISTERED_TOOLS, RegisteredTool } from './tools/registry';

// Both transports build it: `svc mcp` (stdio) and the daemon's /mcp (Streamable HTTP). Every tool calls the daemon
// with the caller's own credential, so each rule is the daemon's and applies unchanged.

export interface SvcMcpOptions {
  api: SvcApi;
  token: string | null;
  missingCredential?: string | null;
  streamHeaders?: Record<string, string>;
  project?: string | null;
  harness?: string | null;
  model?: string | null;
  label?: string;
  wipCap?: number;
  heartbeatMs?: number;
  projectHint?: string;
  // Another process rebuilt this connection (the daemon's /mcp behind several replicas).
  resume?: { sessionId: number | null; noticesAfter: string; subscriptions: string[] } | null;
  onState?: (state: { sessionId?: number; noticesAfter?: string; subscribed?: string; unsubscribed?: string }) => void;
  version: string;
  // stderr for stdio: standard output is the protocol
  log?: (line: string) => void;
}

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

export const MCP_DEFAULT_HEARTBEAT_MS = 30_000;

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

// How long an answered call can still be cancelled by a notification that crossed the answer on the wire.
const CANCEL_WINDOW_MS = 60_000;

export class SvcMcpSession {
  readonly server: McpServer;
  private registration: Promise<SessionResponse> | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private noticesAfter = '0';
  private readonly lapsedTold = new Set<string>();
  private readonly undoByRequest = new Map<string | number, () => Promise<unknown>>();
  private readonly frontier: FrontierResource;
  private readonly context: ToolContext;
  private closed = false;
  private claimQueue: Promise<unknown> = Promise.resolve();
  private readonly claimMarks = new Map<string, object>();

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
    this.frontier = new FrontierResource({
      server: this.server,
      api: options.api,
      token: options.token,
      streamHeaders: options.streamHeaders,
      wipCap: options.wipCap,
      onState: (state) => this.options.onState?.(state),
      log: (line) => this.log(line),
    });
    this.context = this.toolContext();
    this.registerTools();
    this.server.server.setNotificationHandler(CancelledNotificationSchema, (notification) =>
      this.onCancelled(notification),
    );
    this.frontier.register();
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

  private nameSession(id: number | null): void {
    const headers = (this.api as Partial<SvcApi>).http?.headers;
    if (!headers) return;
    if (id === null) delete headers[SESSION_HEADER];
    else headers[SESSION_HEADER] = String(id);
  }

  get sessionId(): Promise<number> {
    return this.ensureSession().then((s) => s.session_id);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.detach();
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
    this.frontier.close();
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

  private toolContext(): ToolContext {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const session = this;
    return {
      get api() {
        return session.api;
      },
      get project() {
        return session.project;
      },
      get wipCap() {
        return session.options.wipCap;
      },
      get harness() {
        return session.harness;
      },
      get model() {
        return session.model;
      },
      get sessionId() {
        return session.sessionId;
      },
      ensureSession: () => this.ensureSession(),
      projectRequired: () => this.projectRequired(),
      serialized: (work) => this.serialized(work),
      claimTaken: (item) => {
        const mark = {};
        this.claimMarks.set(item, mark);
        // past the window no cancellation undoes the call (callTool): the mark is no longer asked for
        setTimeout(() => {
          if (this.claimMarks.get(item) === mark) this.claimMarks.delete(item);
        }, CANCEL_WINDOW_MS).unref();
        return () => this.claimMarks.get(item) === mark;
      },
    };
  }

  // On the SDK's low-level server, so the tools' JSON schemas go out as they are (arguments checked by ajv).
  private registerTools(): void {
    const listed = [...REGISTERED_TOOLS.values()].map((tool) => tool.listed);
    this.server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
    this.server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      try {
        const tool = findTool(request.params.name);
        const args = checkArguments(tool, request.params.arguments);
        const result = await this.callTool(tool, args, extra);
        checkAnswer(tool, result);
        return result;
      } catch (error) {
        return callFailed(error);
      }
    });
  }

  private async callTool(
    tool: RegisteredTool,
    args: Record<string, unknown>,
    extra: { signal: AbortSignal; requestId: string | number },
  ): Promise<CallToolResult> {
    const name = tool.definition.name;
    if (this.options.missingCredential) {
      return toolError({ code: 'not_connected', message: this.options.missingCredential });
    }
    await this.ensureSession().catch(() => undefined);
    const undo: (() => Promise<unknown>)[] = [];
    const result = await tool.definition.run(args as never, this.context, {
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
    this.undoByRequest.set(extra.requestId, undoAll);
    setTimeout(() => this.undoByRequest.delete(extra.requestId), CANCEL_WINDOW_MS).unref();
    return answered;
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

  // Claims lost (taken over after the lease lapsed, released by an admin's forced write or with the session) and
  // others' changes to items the session holds.
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

  private registerPrompts(): void {
    this.server.server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: MCP_PROMPT_LIST }));
    this.server.server.setRequestHandler(GetPromptRequestSchema, async (request): Promise<GetPromptResult> => {
      const { name, input, title } = promptArguments(request.params.name, request.params.arguments);
      return {
        description: `${title}: ${input.ref}`,
        messages: [{ role: 'user', content: { type: 'text', text: await this.promptText(name, input) } }],
      };
    });
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

  setSubscriptions(uris: string[]): void {
    if (this.closed) return;
    this.frontier.setSubscriptions(uris);
  }
}
export const STDIO_PROJECT_HINT = 'or start the server with --project, SVC_PROJECT or .svc.json';
