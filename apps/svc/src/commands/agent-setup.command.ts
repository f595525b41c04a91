import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  rmdirSync,
  unlinkSync,
} from 'node:fs';
import { writeFileSync } from 'node:fs';
import { delimiter, dirname, join, relative, resolve } from 'node:path';

import { Argument, Command, Option } from 'commander';

import { version } from '../../../../package.json';
import { projectOption, scopedProject } from '../context';
import { action, CliError, output, usageError } from '../output';
import {
  cursorRulesFile,
  DEFAULT_TOKEN_ENV,
  Harness,
  harnessFiles,
  HARNESSES,
  hasSection,
  httpSpec,
  instructionsSection,
  jsonEntry,
  mergeJson,
  mergeSection,
  mergeToml,
  readJsonEntry,
  readTomlEntry,
  removeJson,
  removeSection,
  removeToml,
  ServerSpec,
  SetupFileError,
  stdioSpec,
  tomlBlock,
} from './agent-setup';

interface AgentSetupOptions {
  project?: string;
  server?: string;
  tokenEnv: string;
  global?: boolean;
  dir?: string;
  check?: boolean;
  remove?: boolean;
  dryRun?: boolean;
}

interface FileChange {
  path: string;
  action: 'write' | 'unchanged' | 'delete' | 'absent';
  content: string | null;
}

const read = (path: string): string | null => (existsSync(path) ? readFileSync(path, 'utf8') : null);

// Otherwise this node and this script by absolute path (a checkout, npx): the harness starts exactly what ran
// agent-setup.
export function svcCommand(env: NodeJS.ProcessEnv = process.env): string[] {
  const self = process.argv[1] ? realpathSync(process.argv[1]) : null;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, 'svc');
    try {
      accessSync(candidate, constants.X_OK);
      if (self && realpathSync(candidate) === self) return ['svc'];
    } catch {
      // not here
    }
  }
  return self ? [process.execPath, self] : ['svc'];
}

function plan(harness: Harness, options: AgentSetupOptions, root: string): { spec: ServerSpec; changes: FileChange[] } {
  const files = harnessFiles(harness, { root, global: Boolean(options.global) });
  const project = scopedProject(options.project) ?? null;
  if (options.server !== undefined && !/^https?:\/\/[^/\s]+/i.test(options.server)) {
    throw usageError(
      'invalid_server',
      `--server must be an http(s) URL of the team server, e.g. https://svc.example.com`,
    );
  }
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,99}$/.test(options.tokenEnv)) {
    throw usageError('invalid_token_env', '--token-env must name an environment variable, e.g. SVC_TOKEN');
  }
  const spec: ServerSpec =
    options.server !== undefined
      ? httpSpec(options.server, project, options.tokenEnv)
      : stdioSpec(svcCommand(), project);
  const changes: FileChange[] = [];
  const change = (path: string, current: string | null, next: string | null) => {
    const action: FileChange['action'] =
      next === current ? (current === null ? 'absent' : 'unchanged') : next === null ? 'delete' : 'write';
    changes.push({ path, action, content: next });
  };
  const config = read(files.config);
  if (files.format === 'toml') {
    change(
      files.config,
      config,
      options.remove ? removeToml(files.config, config) : mergeToml(files.config, config, tomlBlock(spec)),
    );
  } else {
    const entry = jsonEntry(harness as Exclude<Harness, 'codex'>, spec);
    change(
      files.config,
      config,
      options.remove ? removeJson(files.config, config) : mergeJson(files.config, config, entry),
    );
  }
  if (files.instructions) {
    const current = read(files.instructions);
    const section = instructionsSection(harness, project);
    let next: string | null;
    if (files.ownInstructions)
      next = options.remove ? (hasSection(current) ? null : current) : cursorRulesFile(section);
    else next = options.remove ? removeSection(current) : mergeSection(current, section);
    change(files.instructions, current, next);
  }
  return { spec, changes };
}

function pruneEmpty(dir: string, stop: string): void {
  while (dir !== stop && dir.startsWith(stop)) {
    try {
      rmdirSync(dir);
    } catch {
      return;
    }
    dir = dirname(dir);
  }
}

function apply(changes: FileChange[], stop: string): void {
  for (const c of changes) {
    if (c.action === 'write') {
      mkdirSync(dirname(c.path), { recursive: true });
      writeFileSync(c.path, c.content!);
    } else if (c.action === 'delete') {
      unlinkSync(c.path);
      pruneEmpty(dirname(c.path), stop);
    }
  }
}

interface CheckResult {
  harness: Harness;
  config: string;
  ok: boolean;
  transport: 'stdio' | 'http' | null;
  tools: string[];
  problems: string[];
}

const expandEnv = (value: string) =>
  value.replace(
    /\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (_, name: string, fallback?: string) => process.env[name] ?? fallback ?? '',
  );

async function check(harness: Harness, options: AgentSetupOptions, root: string): Promise<CheckResult> {
  const files = harnessFiles(harness, { root, global: Boolean(options.global) });
  const result: CheckResult = { harness, config: files.config, ok: false, transport: null, tools: [], problems: [] };
  const text = read(files.config);
  const entry = files.format === 'toml' ? readTomlEntry(files.config, text) : readJsonEntry(files.config, text);
  if (files.instructions && !hasSection(read(files.instructions))) {
    result.problems.push(`${files.instructions} has no svc section: run svc agent-setup ${harness}`);
  }
  if (!entry) {
    const what = files.format === 'toml' ? '[mcp_servers.svc] table' : 'mcpServers.svc entry';
    result.problems.push(`${files.config} has no ${what}: run svc agent-setup ${harness}`);
    return result;
  }
  const [{ Client }, { StdioClientTransport }, { StreamableHTTPClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  const client = new Client({ name: 'svc-agent-setup-check', version });
  const url = (entry.url ?? entry.httpUrl) as string | undefined;
  let stderr = '';
  try {
    if (typeof url === 'string') {
      result.transport = 'http';
      const headers: Record<string, string> = {};
      if (typeof entry.bearer_token_env_var === 'string') {
        const token = process.env[entry.bearer_token_env_var];
        if (!token) {
          result.problems.push(`${entry.bearer_token_env_var} is not set here: the harness reads the token from it`);
          return result;
        }
        headers.authorization = `Bearer ${token}`;
      }
      if (entry.headers && typeof entry.headers === 'object') {
        for (const [name, value] of Object.entries(entry.headers as Record<string, string>)) {
          const refs = [...String(value).matchAll(/\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]);
          const missing = refs.filter((r) => !process.env[r]);
          if (missing.length > 0) {
            result.problems.push(`${missing.join(', ')} is not set here: the harness fills the ${name} header from it`);
            return result;
          }
          headers[name.toLowerCase()] = expandEnv(String(value));
        }
      }
      await client.connect(new StreamableHTTPClientTransport(new URL(expandEnv(url)), { requestInit: { headers } }), {
        timeout: 15_000,
      });
    } else if (typeof entry.command === 'string') {
      result.transport = 'stdio';
      const args = Array.isArray(entry.args) ? entry.args.map((a) => expandEnv(String(a))) : [];
      const transport = new StdioClientTransport({
        command: expandEnv(entry.command),
        args,
        env: Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined)),
        cwd: root,
        stderr: 'pipe',
      });
      transport.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
      await client.connect(transport, { timeout: 15_000 });
    } else {
      result.problems.push(`${files.config}: the svc entry names neither a command nor a url`);
      return result;
    }
    const tools = await client.listTools(undefined, { timeout: 15_000 });
    result.tools = tools.tools.map((t) => t.name);
    if (!result.tools.includes('next_work')) {
      result.problems.push(`the server ${files.config} names is not svc's (no next_work tool)`);
    } else {
      // a tool call shows whether it holds a credential (svc mcp without one answers initialize, then refuses)
      const probe = await client.callTool({ name: 'my_work', arguments: {} }, undefined, { timeout: 15_000 });
      if (probe.isError) {
        const text = (probe.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join(' ');
        result.problems.push(`svc answers, but a tool call failed: ${text.slice(0, 300)}`);
      }
    }
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    const tail = stderr.trim().split('\n').slice(-3).join(' | ');
    result.problems.push(
      `cannot reach the svc MCP server ${files.config} names: ${why}${tail ? ` (its stderr: ${tail})` : ''}`,
    );
  } finally {
    await client.close().catch(() => undefined);
  }
  result.ok = result.problems.length === 0;
  return result;
}

export function registerAgentSetupCommand(program: Command): void {
  program
    .command('agent-setup')
    .description("write a coding harness's MCP server entry for svc and a short instructions section")
    .addArgument(new Argument('<harness>', 'the coding harness').choices(HARNESSES))
    .addOption(projectOption('project the agent works in (written into the entry)'))
    .option('--server <url>', 'the team server: an HTTP entry to <url>/mcp (default: stdio `svc mcp`)')
    .addOption(
      new Option(
        '--token-env <name>',
        'environment variable the harness reads the bearer token from (with --server)',
      ).default(DEFAULT_TOKEN_ENV),
    )
    .option('--global', "the user's own harness files instead of this checkout's")
    .option('--dir <path>', 'the checkout whose files to write (default: the current folder)')
    .addOption(
      new Option('--check', 'verify: the entry is there and starts (or reaches) a working svc').conflicts([
        'remove',
        'dryRun',
      ]),
    )
    .option('--remove', 'take out exactly what agent-setup wrote, leaving other entries and text')
    .option('--dry-run', 'print what would be written, change nothing')
    .action(
      action(async (harness: Harness, options: AgentSetupOptions, command: Command) => {
        const root = resolve(options.dir ?? process.cwd());
        const shown = (path: string) => (options.global ? path : relative(root, path) || path);
        if (options.check) {
          const result = await check(harness, options, root);
          output(command, result, (r) => {
            if (r.ok) {
              process.stdout.write(
                `ok: ${shown(r.config)} starts svc over ${r.transport}; ${r.tools.length} tools (${r.tools.join(', ')})\n`,
              );
            } else for (const p of r.problems) process.stdout.write(`problem: ${p}\n`);
          });
          if (!result.ok) {
            throw new CliError(
              'agent_setup_check_failed',
              `svc agent-setup ${harness} --check found ${result.problems.length} problem(s)`,
            );
          }
          return;
        }
        let planned: ReturnType<typeof plan>;
        try {
          planned = plan(harness, options, root);
        } catch (err) {
          if (err instanceof SetupFileError) throw new CliError('agent_setup_file_unreadable', err.message);
          throw err;
        }
        if (!options.dryRun) apply(planned.changes, options.global ? dirname(planned.changes[0].path) : root);
        const body = {
          harness,
          scope: options.global ? 'global' : 'project',
          dry_run: Boolean(options.dryRun),
          removed: Boolean(options.remove),
          server: planned.spec,
          files: planned.changes.map((c) => ({ path: c.path, action: c.action })),
        };
        output(command, body, () => {
          const verb = (a: FileChange['action']) =>
            options.dryRun
              ? { write: 'would write', unchanged: 'unchanged', delete: 'would delete', absent: 'absent' }[a]
              : { write: 'wrote', unchanged: 'unchanged', delete: 'deleted', absent: 'absent' }[a];
          for (const c of planned.changes) {
            process.stdout.write(`${verb(c.action)} ${shown(c.path)}\n`);
            if (options.dryRun && c.action === 'write') process.stdout.write(`${c.content!.replace(/^/gm, '  ')}\n`);
          }
          if (options.remove || options.dryRun) return;
          if (planned.spec.kind === 'http') {
            process.stdout.write(
              `the harness sends the token from ${planned.spec.tokenEnv}: set it in its environment (svc tokens create --name ${harness})\n`,
            );
          }
          if (harness === 'codex' && !options.global) {
            process.stdout.write('Codex reads .codex/config.toml in trusted projects only (or use --global)\n');
          }
          process.stdout.write(`verify: svc agent-setup ${harness} --check${options.global ? ' --global' : ''}\n`);
        });
      }),
    );
}
