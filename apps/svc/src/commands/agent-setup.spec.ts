import {
  httpSpec,
  MARK_END,
  MARK_START,
  mergeJson,
  mergeSection,
  mergeToml,
  readTomlEntry,
  removeJson,
  removeSection,
  removeToml,
  SetupFileError,
  stdioSpec,
  tomlBlock,
} from './agent-setup';

const FILE = 'config.toml';

describe('agent-setup: Codex TOML, the [mcp_servers.svc] table edited as text', () => {
  const block = tomlBlock(stdioSpec(['svc'], 'atlas'));

  it('should append the table, replace it in place, and take it out again', () => {
    const user = 'model = "o3"\n\n[mcp_servers.other]\ncommand = "x"\n';
    const merged = mergeToml(FILE, user, block);
    expect(merged).toBe(`${user}\n${block}`);
    expect(mergeToml(FILE, merged, block)).toBe(merged);
    expect(removeToml(FILE, merged)).toBe(user);
  });

  it('should replace a table in the middle, its subtables with it, and keep the tables after it', () => {
    const user =
      '[mcp_servers.svc]\ncommand = "old"\n\n[mcp_servers.svc.env]\nA = "1"\n\n[profiles.fast]\nmodel = "mini"\n';
    const merged = mergeToml(FILE, user, block);
    expect(merged).toBe(`${block}\n[profiles.fast]\nmodel = "mini"\n`);
    expect(removeToml(FILE, merged)).toBe('[profiles.fast]\nmodel = "mini"\n');
    expect(readTomlEntry(FILE, merged)).toEqual({ command: 'svc', args: ['mcp', '--project', 'atlas'] });
  });

  it('should refuse svc defined as a dotted key or an inline table (not its to edit)', () => {
    expect(() => mergeToml(FILE, 'mcp_servers.svc.command = "x"\n', block)).toThrow(SetupFileError);
    expect(() => mergeToml(FILE, '[mcp_servers]\nsvc = { command = "x" }\n', block)).toThrow(SetupFileError);
    // a key named svc elsewhere is not the server
    expect(mergeToml(FILE, '[profiles.svc]\nsvc = 1\n', block)).toContain('[mcp_servers.svc]');
  });

  it('should write an HTTP table with the token variable only', () => {
    const http = tomlBlock(httpSpec('https://svc.example.com/base/', 'atlas', 'SVC_TOKEN'));
    expect(http).toContain(
      'url = "https://svc.example.com/base/mcp?project=atlas"\nbearer_token_env_var = "SVC_TOKEN"\n',
    );
  });
});

describe('agent-setup: JSON and instructions', () => {
  it('should merge mcpServers.svc keeping other keys, and remove only it', () => {
    const user = `${JSON.stringify({ a: 1, mcpServers: { x: { command: 'x' } } }, null, 2)}\n`;
    const merged = mergeJson('f', user, { command: 'svc', args: ['mcp'] });
    expect(JSON.parse(merged)).toEqual({
      a: 1,
      mcpServers: { x: { command: 'x' }, svc: { command: 'svc', args: ['mcp'] } },
    });
    expect(removeJson('f', merged)).toBe(user);
    expect(removeJson('f', mergeJson('f', null, { command: 'svc' }))).toBeNull();
    expect(() => mergeJson('f', '[1]', {})).toThrow(SetupFileError);
  });

  it('should replace the section between the markers, never duplicate it, and remove it cleanly', () => {
    const user = '# Rules\n\nBe kind.\n';
    const once = mergeSection(user, 'one');
    expect(once).toBe(`${user}\n${MARK_START}\none\n${MARK_END}\n`);
    const twice = mergeSection(once, 'two');
    expect(twice.split(MARK_START)).toHaveLength(2);
    expect(twice).toContain('\ntwo\n');
    expect(removeSection(twice)).toBe(user);
    expect(removeSection(mergeSection(null, 'x'))).toBeNull();
    // text after the section stays
    const middle = `${MARK_START}\nx\n${MARK_END}\nafter\n`;
    expect(removeSection(middle)).toBe('after\n');
  });
});
