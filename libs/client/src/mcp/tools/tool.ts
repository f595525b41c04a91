import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { GateBlockerWire, SessionResponse } from '@app/contracts';
import {
  anything,
  array,
  describe,
  integer,
  object,
  optional,
  record,
  Shape,
  ShapeValue,
  string,
} from '@app/contracts/mcp';

import { SvcApi } from '../../api';
import { ChargeFlowError } from '../../charge-flow';
import { SvcConnectionError, SvcHttpError } from '../../http-client';
import { blockersText, compactJson } from '../text';

// A write says whether calling it twice does more than once, and whether it can undo work.
export interface ToolAnnotations {
  readOnlyHint: boolean;
  idempotentHint?: boolean;
  destructiveHint?: boolean;
  openWorldHint: false;
}

export const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
export const WRITE = (idempotent: boolean, destructive = false): ToolAnnotations => ({
  readOnlyHint: false,
  idempotentHint: idempotent,
  destructiveHint: destructive,
  openWorldHint: false,
});

// A claim the client never learns of must not stand: the call registers what undoes it.
export interface ToolCall {
  signal: AbortSignal;
  onCancel: (undo: () => Promise<unknown>) => void;
}

export interface ToolContext {
  readonly api: SvcApi;
  readonly project: string | null;
  readonly wipCap: number | undefined;
  readonly harness: string;
  readonly model: string;
  readonly sessionId: Promise<number>;
  ensureSession(): Promise<SessionResponse>;
  projectRequired(): SvcHttpError;
  serialized<T>(work: () => Promise<T>): Promise<T>;
  // Marks the item's claim on this connection as the one this call made; the answer says whether it still is (no
  // later claim of the item on this connection took its place), so that undoing a call gives back only its own claim.
  claimTaken(item: string): () => boolean;
}

// The server makes input and output strict objects, adds the notices to the output, and validates both sides
// (./validation.ts).
export interface ToolDefinition<S extends Shape = Shape> {
  name: string;
  title: string;
  description: string;
  input: S;
  output: Shape;
  annotations: ToolAnnotations;
  run(args: ShapeValue<S>, ctx: ToolContext, call: ToolCall): Promise<CallToolResult>;
}

export function defineTool<S extends Shape>(definition: ToolDefinition<S>): ToolDefinition<S> {
  return definition;
}

export interface ToolErrorBody {
  code: string;
  message: string;
  [key: string]: unknown;
}

export function toolError(body: ToolErrorBody): CallToolResult {
  const lines = [`${body.code}: ${body.message}`];
  if (Array.isArray(body.blockers)) lines.push(...blockersText(body.blockers as GateBlockerWire[]));
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

// A client that shows the model only the text still gives it the whole result.
export function withJson(summary: string, value: object, forText: object = value): CallToolResult {
  return {
    content: [{ type: 'text', text: `${summary}\n${compactJson(forText)}` }],
    structuredContent: value as Record<string, unknown>,
  };
}

export async function answer<T extends object>(
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

export const noticesSchema = describe(
  optional(object({ lapsed_claims: array(record(anything())), notices: array(record(anything())) })),
  'what this session should hear of since its last call: claims it lost, others’ changes to its items',
);

export const refArg = (what = 'public item ref, e.g. ATL-6') => describe(string({ minLength: 1, maxLength: 40 }), what);
export const ref = refArg();
export const projectArg = describe(
  optional(string({ minLength: 1, maxLength: 63 })),
  'project id (default: the server’s project scope)',
);
// A read takes any cap as a what-if; next_work and claim run under it, and one above the project policy's is an
// organization admin's (the daemon refuses others with wip_cap_override_forbidden).
export const whatIfWipCapArg = describe(
  optional(integer({ minimum: 0, maximum: 10_000 })),
  'what-if WIP cap for this read (default: the project policy’s)',
);
export const wipCapArg = describe(
  optional(integer({ minimum: 0, maximum: 10_000 })),
  'a lower WIP cap than the project policy’s; a higher one only for an organization admin',
);
