import { ErrorCode, McpError, Prompt } from '@modelcontextprotocol/sdk/types.js';

import { describe, isOptional, JsonSchema, object, optional, Shape, string } from '@app/contracts/mcp';

import { ADAPTER_GUIDES, MCP_PROMPTS, McpPromptName } from './prompts';
import { validationProblems } from './validation';

// An argument a prompt does not take is let through: a client may send what its slash command collected.

export interface PromptInput {
  ref: string;
  phase?: string;
}

const ref = describe(string({ minLength: 1, maxLength: 40 }), 'public item ref, e.g. ATL-6');
const phase = describe(optional(string({ maxLength: 100 })), 'the phase to advance (default implementation)');

const argumentsOf = (name: McpPromptName): Shape => (name === 'advance' ? { ref, phase } : { ref });

function looseObject(shape: Shape): JsonSchema {
  const { additionalProperties: _strict, ...json } = object(shape).json;
  return json;
}

const SCHEMAS = new Map(MCP_PROMPTS.map((name) => [name, looseObject(argumentsOf(name))]));

export const MCP_PROMPT_LIST: Prompt[] = MCP_PROMPTS.map((name) => ({
  name,
  title: ADAPTER_GUIDES[name].title,
  description: `${ADAPTER_GUIDES[name].description} (svc entrypoint /svc ${name} <ref>)`,
  arguments: Object.entries(argumentsOf(name)).map(([argument, schema]) => ({
    name: argument,
    description: schema.json.description as string,
    required: !isOptional(schema),
  })),
}));

export function promptArguments(
  name: string,
  args: Record<string, string> | undefined,
): { name: McpPromptName; title: string; input: PromptInput } {
  const schema = SCHEMAS.get(name as McpPromptName);
  if (!schema) throw new McpError(ErrorCode.InvalidParams, `Prompt ${name} not found`);
  const input = args ?? {};
  const problems = validationProblems(schema, input);
  if (problems !== null)
    throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for prompt ${name}: ${problems}`);
  const prompt = name as McpPromptName;
  return { name: prompt, title: ADAPTER_GUIDES[prompt].title, input: input as unknown as PromptInput };
}
