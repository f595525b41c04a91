import { entrypointHowTo, parseEntrypoint } from './entrypoints';

// Issue 37: the entrypoints svc hands out name the svc MCP server's prompts; svc charge and the TUI say how to run one.
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

  it('should say how to run it in an MCP client, the prompt syntax included', () => {
    expect(entrypointHowTo('/svc usher ATL-6')).toBe(
      'in an MCP client connected to svc (svc mcp): the prompt usher with ref ATL-6 — e.g. /svc:usher ATL-6 ' +
        '(Claude Code: /mcp__svc__usher ATL-6)',
    );
    expect(entrypointHowTo('/svc advance ATL-6 implementation')).toContain('/mcp__svc__advance ATL-6 implementation');
    expect(entrypointHowTo('./deploy.sh ATL-6')).toBeNull();
  });
});
