// The seed's dispatch entrypoints (`/svc usher ATL-6`, `/svc advance ATL-6 implementation`) are the svc MCP server's
// prompts of the same name: how to run one in an MCP client, for svc charge, the TUI and the MCP tools.

export const MCP_PROMPTS = ['refine', 'shepherd', 'conduct', 'polish', 'usher', 'advance'] as const;
export type McpPromptName = (typeof MCP_PROMPTS)[number];

// "/svc usher ATL-6" → the prompt and its arguments; null for anything else.
export function parseEntrypoint(
  entrypoint: string | null | undefined,
): { prompt: McpPromptName; ref: string; phase?: string } | null {
  if (!entrypoint) return null;
  const words = entrypoint.trim().split(/\s+/);
  if (words[0] !== '/svc' || words.length < 3) return null;
  const prompt = words[1] as McpPromptName;
  if (!MCP_PROMPTS.includes(prompt)) return null;
  return { prompt, ref: words[2], ...(prompt === 'advance' && words[3] ? { phase: words[3] } : {}) };
}

// How to run an entrypoint in an MCP client (svc charge, the TUI's dispatch dialog): the svc server's prompt of that
// name, as each harness spells it (checked against their documentation; docs/mcp.md "Prompts"). Claude Code names
// MCP prompts /mcp__<server>__<prompt> and Gemini CLI /<prompt>, each taking the arguments in order; Cursor lists
// them in the chat's / menu; Codex offers no MCP prompts, so its agent reads the item and follows the adapter
// (the section `svc agent-setup codex` writes in AGENTS.md says how).
export function entrypointHowToLines(entrypoint: string | null | undefined): string[] | null {
  const parsed = parseEntrypoint(entrypoint);
  if (!parsed) return null;
  const { prompt, ref, phase } = parsed;
  const args = [ref, ...(phase ? [phase] : [])].join(' ');
  return [
    `in an MCP client connected to svc (svc mcp; svc agent-setup writes the entry): the svc prompt ${prompt} with ref ${ref}${phase ? ` and phase ${phase}` : ''}`,
    `  Claude Code  /mcp__svc__${prompt} ${args}`,
    `  Gemini CLI   /${prompt} ${args}`,
    `  Cursor       ${prompt} in the chat's / menu (ref ${ref}${phase ? `, phase ${phase}` : ''})`,
    `  Codex        no MCP prompts: have it get_item ${ref} and follow the ${prompt} adapter (AGENTS.md)`,
  ];
}

export function entrypointHowTo(entrypoint: string | null | undefined): string | null {
  return entrypointHowToLines(entrypoint)?.join('\n') ?? null;
}
