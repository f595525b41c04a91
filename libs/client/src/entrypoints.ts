// The seed's dispatch entrypoints (`/svc usher ATL-6`) are the svc MCP server's prompts of the same name.

export const MCP_PROMPTS = ['refine', 'shepherd', 'conduct', 'polish', 'usher', 'advance'] as const;
export type McpPromptName = (typeof MCP_PROMPTS)[number];

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

// As each harness spells an MCP prompt (docs/mcp.md "Prompts"). Codex offers no MCP prompts, so its agent reads the
// item and follows the adapter (`svc agent-setup codex` writes how in AGENTS.md).
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
