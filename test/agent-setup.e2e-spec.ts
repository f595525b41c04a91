import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import { createTestDatabase, DaemonProcess, runSvc, startDaemonProcess, svcEnv, TestDatabase } from '@app/testing';

type Json = Record<string, unknown>;

// What each harness's files are, in the checkout (project scope).
const FILES: Record<string, { config: string; instructions: string }> = {
  claude: { config: '.mcp.json', instructions: 'CLAUDE.md' },
  codex: { config: '.codex/config.toml', instructions: 'AGENTS.md' },
  cursor: { config: '.cursor/mcp.json', instructions: '.cursor/rules/svc.mdc' },
  gemini: { config: '.gemini/settings.json', instructions: 'GEMINI.md' },
};

// Every file under a folder, with its text: what "changes nothing" and "restores" compare.
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else out[path.slice(dir.length + 1)] = readFileSync(path, 'utf8');
    }
  };
  walk(dir);
  return out;
}

function write(dir: string, path: string, text: string): void {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), text);
}

// Issue 37 deliver 2: `svc agent-setup <harness>` writes the harness's MCP entry and an instructions section.
describe('svc agent-setup', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;

  // A checkout of its own (cwd) and a HOME of its own for every run: nothing of the user's is read or written.
  function checkout(project = 'ags'): { dir: string; home: string } {
    const dir = mkdtempSync(join(tmpdir(), 'svc-agent-setup-'));
    const home = mkdtempSync(join(tmpdir(), 'svc-agent-setup-home-'));
    writeFileSync(join(dir, '.svc.json'), JSON.stringify({ project }));
    return { dir, home };
  }
  const setup = (where: { dir: string; home: string }, args: string[], env: Record<string, string | undefined> = {}) =>
    runSvc(['agent-setup', ...args], { cwd: where.dir, env: { ...svcEnv(daemon), HOME: where.home, ...env } });

  beforeAll(async () => {
    db = await createTestDatabase('server', 'agent_setup');
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url } });
    const created = await runSvc(['projects', 'create', 'ags', '--prefix', 'AGS'], { env: svcEnv(daemon) });
    expect(created.code).toBe(0);
    const item = await runSvc(['items', 'create', '--project', 'ags', '--title', 'first'], { env: svcEnv(daemon) });
    expect(item.code).toBe(0);
  });

  afterAll(async () => {
    await daemon?.stop();
    await db?.drop();
  });

  it.each(Object.keys(FILES))(
    '%s: writes the entry and the section, merges into the user’s files, is idempotent, checks and removes',
    async (harness) => {
      const where = checkout();
      const { config, instructions } = FILES[harness];
      // the user's own entries and text, which every step keeps
      if (config.endsWith('.json')) {
        write(
          where.dir,
          config,
          `${JSON.stringify({ theme: 'dark', mcpServers: { other: { command: 'other-mcp' } } }, null, 2)}\n`,
        );
      } else {
        write(
          where.dir,
          config,
          'model = "o3"\n\n[mcp_servers.other]\ncommand = "other-mcp"\n\n[profiles.fast]\nmodel = "mini"\n',
        );
      }
      if (!instructions.endsWith('.mdc')) write(where.dir, instructions, '# House rules\n\nRun the tests.\n');
      const before = snapshot(where.dir);

      const first = await setup(where, [harness]);
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      expect(first.stdout).toContain(`wrote ${config}`);
      expect(first.stdout).toContain(`wrote ${instructions}`);
      const written = snapshot(where.dir);
      const configText = written[config];
      expect(configText).toContain('other-mcp');
      expect(configText).toMatch(/"mcp"|'mcp'/);
      expect(configText).toContain('--project');
      if (config.endsWith('.json')) {
        const doc = JSON.parse(configText) as { theme: string; mcpServers: Record<string, Json> };
        expect(doc.theme).toBe('dark');
        expect(Object.keys(doc.mcpServers)).toEqual(['other', 'svc']);
        expect((doc.mcpServers.svc.args as string[]).slice(-3)).toEqual(['mcp', '--project', 'ags']);
      } else {
        expect(configText).toContain('[mcp_servers.svc]');
        expect(configText).toContain('[profiles.fast]\nmodel = "mini"');
        expect(configText).toMatch(/args = \[.*"mcp", "--project", "ags"\]/);
      }
      expect(written[instructions]).toContain('next_work');
      if (!instructions.endsWith('.mdc')) expect(written[instructions]).toMatch(/^# House rules\n\nRun the tests\.\n/);
      expect(written[instructions]).not.toContain(daemon.token!);
      expect(configText).not.toContain(daemon.token!);

      // twice: nothing changes
      const again = await setup(where, [harness]);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain(`unchanged ${config}`);
      expect(again.stdout).toContain(`unchanged ${instructions}`);
      expect(snapshot(where.dir)).toEqual(written);

      // --check starts what the entry names and lists svc's tools
      const checked = await setup(where, [harness, '--check']);
      expect(checked.stderr).toBe('');
      expect(checked.stdout).toMatch(/^ok: .* starts svc over stdio; \d+ tools \(.*next_work/);
      expect(checked.code).toBe(0);

      // --remove leaves the user's files as they were
      const removed = await setup(where, [harness, '--remove']);
      expect(removed.code).toBe(0);
      const after = snapshot(where.dir);
      if (config.endsWith('.json')) {
        expect(JSON.parse(after[config])).toEqual(JSON.parse(before[config]));
        expect({ ...after, [config]: '' }).toEqual({ ...before, [config]: '' });
      } else expect(after).toEqual(before);
      if (harness === 'cursor') expect(existsSync(join(where.dir, '.cursor', 'rules'))).toBe(false);
    },
  );

  it('should create the files in an empty checkout and remove them all again', async () => {
    const where = checkout();
    for (const harness of Object.keys(FILES)) expect((await setup(where, [harness])).code).toBe(0);
    for (const harness of Object.keys(FILES)) expect((await setup(where, [harness, '--remove'])).code).toBe(0);
    expect(readdirSync(where.dir)).toEqual(['.svc.json']);
  });

  // The Done-when: the configuration svc agent-setup claude writes is what a harness starts; the SDK's client
  // stands in for Claude Code, spawning exactly the command of .mcp.json's entry.
  it('claude: the SDK client connects with the written .mcp.json and lists the tools', async () => {
    const where = checkout();
    expect((await setup(where, ['claude'])).code).toBe(0);
    const entry = (
      JSON.parse(readFileSync(join(where.dir, '.mcp.json'), 'utf8')) as {
        mcpServers: { svc: { command: string; args: string[] } };
      }
    ).mcpServers.svc;
    const transport = new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      cwd: where.dir,
      env: { PATH: process.env.PATH ?? '', HOME: where.home, ...svcEnv(daemon) },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'claude-code', version: '1.0.0' });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(['next_work', 'claim', 'get_item', 'set_status']),
      );
      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => p.name)).toEqual(expect.arrayContaining(['usher', 'conduct']));
      // the entry's --project scopes the session: next_work offers the project's item
      const next = (await client.callTool({ name: 'next_work', arguments: {} })) as CallToolResult;
      expect(next.isError).toBeFalsy();
      expect(JSON.stringify(next.structuredContent)).toContain('AGS-1');
    } finally {
      await client.close();
    }
  });

  it('--server: an HTTP entry to <url>/mcp naming the token variable, never the token; --check reaches it', async () => {
    const where = checkout();
    for (const harness of Object.keys(FILES)) {
      const result = await setup(where, [harness, '--server', `${daemon.url}/`]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('SVC_TOKEN');
    }
    const files = snapshot(where.dir);
    for (const text of Object.values(files)) expect(text).not.toContain(daemon.token!);
    const url = `${daemon.url}/mcp?project=ags`;
    expect(JSON.parse(files['.mcp.json'])).toEqual({
      mcpServers: { svc: { type: 'http', url, headers: { Authorization: 'Bearer ${SVC_TOKEN}' } } },
    });
    expect(JSON.parse(files['.cursor/mcp.json'])).toEqual({
      mcpServers: { svc: { url, headers: { Authorization: 'Bearer ${env:SVC_TOKEN}' } } },
    });
    expect(JSON.parse(files['.gemini/settings.json'])).toEqual({
      mcpServers: { svc: { httpUrl: url, headers: { Authorization: 'Bearer ${SVC_TOKEN}' } } },
    });
    expect(files['.codex/config.toml']).toContain(`url = "${url}"\nbearer_token_env_var = "SVC_TOKEN"\n`);

    for (const harness of ['claude', 'codex']) {
      const checked = await setup(where, [harness, '--check']);
      expect(checked.stdout).toMatch(/^ok: .* starts svc over http; \d+ tools/);
      expect(checked.code).toBe(0);
    }
    // without the variable in the environment the check says which one is missing
    const missing = await setup(where, ['cursor', '--check'], { SVC_TOKEN: undefined });
    expect(missing.code).not.toBe(0);
    expect(missing.stdout).toContain('SVC_TOKEN is not set here');
  });

  it('--check fails, saying what is wrong, without an entry or without a credential', async () => {
    const where = checkout();
    const none = await setup(where, ['gemini', '--check']);
    expect(none.code).toBe(1);
    expect(none.stdout).toContain('.gemini/settings.json has no mcpServers.svc entry: run svc agent-setup gemini');
    expect(none.stderr).toContain('agent_setup_check_failed');

    expect((await setup(where, ['codex'])).code).toBe(0);
    const config = mkdtempSync(join(tmpdir(), 'svc-agent-setup-noconfig-'));
    const noCredential = await setup(where, ['codex', '--check'], {
      SVC_TOKEN: undefined,
      SVC_CONFIG_DIR: config,
    });
    expect(noCredential.code).toBe(1);
    expect(noCredential.stdout).toContain('svc connect');
  });

  it('--dry-run prints what it would write and changes nothing', async () => {
    const where = checkout();
    const before = snapshot(where.dir);
    const result = await setup(where, ['cursor', '--dry-run']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('would write .cursor/mcp.json');
    expect(result.stdout).toContain('"mcpServers"');
    expect(snapshot(where.dir)).toEqual(before);
  });

  it('refuses a config file it cannot read as JSON, changing nothing', async () => {
    const where = checkout();
    write(where.dir, '.mcp.json', '{ "mcpServers": ');
    const before = snapshot(where.dir);
    const result = await setup(where, ['claude']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('is not valid JSON');
    expect(snapshot(where.dir)).toEqual(before);
  });
});
