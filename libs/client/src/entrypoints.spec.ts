import { entrypointHowTo, entrypointHowToLines, parseEntrypoint } from './entrypoints';

// The entrypoints svc hands out name the svc MCP server's prompts; svc charge and the TUI say how to run one.
describe('entrypoints as MCP prompts', () => {
  it('should read an adapter entrypoint and advance with its phase, and nothing else', () => {
    expect(parseEntrypoint('/svc usher ATL-6')).toEqual({ prompt: 'usher', ref: 'ATL-6' });
    expect(parseEntrypoint('/svc advance ATL-6 implementation')).toEqual({
      prompt: 'advance',
      ref: 'ATL-6',
      phase: 'implementation',
    });
    expect(parseEntrypoint('/svc approve ATL-6')).toBeNull();
    expect(parseEntrypoint('/custom usher ATL-6')).toBeNull();
    expect(parseEntrypoint('/svc usher')).toBeNull();
    expect(parseEntrypoint(null)).toBeNull();
  });

  it('should say how to run it in each harness, the prompt syntax included', () => {
    expect(entrypointHowToLines('/svc usher ATL-6')).toEqual([
      'in an MCP client connected to svc (svc mcp; svc agent-setup writes the entry): the svc prompt usher with ref ATL-6',
      '  Claude Code  /mcp__svc__usher ATL-6',
      '  Gemini CLI   /usher ATL-6',
      "  Cursor       usher in the chat's / menu (ref ATL-6)",
      '  Codex        no MCP prompts: have it get_item ATL-6 and follow the usher adapter (AGENTS.md)',
    ]);
    const advance = entrypointHowTo('/svc advance ATL-6 implementation');
    expect(advance).toContain('/mcp__svc__advance ATL-6 implementation');
    expect(advance).toContain('/advance ATL-6 implementation');
    expect(advance).not.toContain('/svc:'); // no harness spells a prompt so
    expect(entrypointHowTo('./deploy.sh ATL-6')).toBeNull();
  });
});
