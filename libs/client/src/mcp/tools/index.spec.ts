import { MCP_TOOL_DEFINITIONS, MCP_TOOLS } from '.';

describe('the MCP tool table', () => {
  it('should hold each tool MCP_TOOLS names once, and no other', () => {
    const names = MCP_TOOL_DEFINITIONS.map((tool) => tool.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual([...MCP_TOOLS].sort());
  });

  it('should say of each tool whether it only reads', () => {
    for (const tool of MCP_TOOL_DEFINITIONS) {
      expect(typeof tool.annotations.readOnlyHint).toBe('boolean');
      expect(tool.annotations.openWorldHint).toBe(false);
    }
  });
});
