// The seed's dispatch entrypoints (`/svc usher ATL-6`, `/svc advance ATL-6 implementation`) are the svc MCP server's
// prompts of the same name (issue 37): how to run one in an MCP client, for svc charge, the TUI and the MCP tools.

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

// How to run an entrypoint in an MCP client (svc charge, the TUI's dispatch dialog, next_work and claim).
export function entrypointHowTo(entrypoint: string | null | undefined): string | null {
  const parsed = parseEntrypoint(entrypoint);
  if (!parsed) return null;
  const args = [parsed.ref, ...(parsed.phase ? [parsed.phase] : [])].join(' ');
  return (
    `in an MCP client connected to svc (svc mcp): the prompt ${parsed.prompt} with ref ${parsed.ref}` +
    `${parsed.phase ? ` and phase ${parsed.phase}` : ''} — e.g. /svc:${parsed.prompt} ${args} ` +
    `(Claude Code: /mcp__svc__${parsed.prompt} ${args})`
  );
}
