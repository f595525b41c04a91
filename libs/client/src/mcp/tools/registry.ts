import { CallToolResult, ErrorCode, McpError, Tool } from '@modelcontextprotocol/sdk/types.js';

import { JsonSchema, object } from '@app/contracts/mcp';

import { validationProblems } from '../validation';
import { MCP_TOOL_DEFINITIONS } from './index';
import { noticesSchema, ToolDefinition } from './tool';

// A client checks the answer against the output schema too, so one that would fail there is refused here, as a tool
// error that names the field.

const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

export interface RegisteredTool {
  definition: ToolDefinition;
  listed: Tool;
}

// Dialect named last, as clients have always been given it.
function listedSchema(json: JsonSchema): Tool['inputSchema'] {
  return { type: 'object', ...json, $schema: DRAFT_07 };
}

function register(tool: ToolDefinition): RegisteredTool {
  return {
    definition: tool,
    listed: {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      // a strict object: an argument the tool does not take is refused, not silently dropped (so
      // `create_item {description: …}` does not make an item with an empty body)
      inputSchema: listedSchema(object(tool.input).json),
      annotations: tool.annotations,
      execution: { taskSupport: 'forbidden' },
      // every result may carry the session's notices (withNotices): declared, or a client validating the
      // structured content against the schema refuses the answer
      outputSchema: listedSchema(object({ ...tool.output, notices: noticesSchema }).json),
    },
  };
}

export const REGISTERED_TOOLS: ReadonlyMap<string, RegisteredTool> = new Map(
  MCP_TOOL_DEFINITIONS.map((tool) => [tool.name, register(tool)]),
);

export function findTool(name: string): RegisteredTool {
  const tool = REGISTERED_TOOLS.get(name);
  if (!tool) throw new McpError(ErrorCode.InvalidParams, `Tool ${name} not found`);
  return tool;
}

export function checkArguments(
  tool: RegisteredTool,
  args: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const value = args ?? {};
  const names = Object.keys(tool.definition.input);
  const takes = names.length > 0 ? `takes only ${names.join(', ')}` : 'takes no arguments';
  const problems = validationProblems(tool.listed.inputSchema as JsonSchema, value, {
    unknownProperties: (unknown) =>
      `unknown argument${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')}: ${tool.definition.name} ${takes}`,
  });
  if (problems !== null) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Input validation error: Invalid arguments for tool ${tool.definition.name}: ${problems}`,
    );
  }
  return value;
}

export function checkAnswer(tool: RegisteredTool, result: CallToolResult): void {
  if (result.isError) return;
  const name = tool.definition.name;
  if (!result.structuredContent) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Output validation error: Tool ${name} has an output schema but no structured content was provided`,
    );
  }
  const problems = validationProblems(tool.listed.outputSchema as JsonSchema, result.structuredContent);
  if (problems !== null) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Output validation error: Invalid structured content for tool ${name}: ${problems}`,
    );
  }
}

export function callFailed(error: unknown): CallToolResult {
  return { content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }], isError: true };
}
