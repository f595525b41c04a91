import { homedir } from 'node:os';
import { join } from 'node:path';

// The pure part: edits (merge, replace, remove) that leave the user's own entries and text as they were.

export const HARNESSES = ['claude', 'codex', 'cursor', 'gemini'] as const;
export type Harness = (typeof HARNESSES)[number];

export const SERVER_NAME = 'svc';
export const DEFAULT_TOKEN_ENV = 'SVC_TOKEN';
export const HTTP_PROJECT_PARAM = 'project';

export const MARK_START = '<!-- svc agent-setup: start (svc agent-setup --remove takes this section out) -->';
export const MARK_END = '<!-- svc agent-setup: end -->';

export type ConfigFormat = 'json' | 'toml';

export interface HarnessFiles {
  config: string;
  format: ConfigFormat;
  // null: the harness has no file for it in this scope (Cursor's user rules live in its settings UI)
  instructions: string | null;
  // the instructions file is svc's alone (Cursor's .cursor/rules/svc.mdc): written whole, removed whole
  ownInstructions: boolean;
}

export interface Scope {
  root: string; // the checkout (project scope)
  global: boolean; // the user's own files instead of the checkout's
  home?: string;
  env?: NodeJS.ProcessEnv;
}

// Checked against each harness's documentation (docs/mcp.md "Agent setup").
export function harnessFiles(harness: Harness, scope: Scope): HarnessFiles {
  const home = scope.home ?? homedir();
  const env = scope.env ?? process.env;
  const at = (...parts: string[]) => (scope.global ? join(home, ...parts) : join(scope.root, ...parts));
  switch (harness) {
    case 'claude':
      // project scope: .mcp.json at the root; user scope: ~/.claude.json's top-level mcpServers
      return scope.global
        ? {
            config: join(home, '.claude.json'),
            format: 'json',
            instructions: join(home, '.claude', 'CLAUDE.md'),
            ownInstructions: false,
          }
        : { config: at('.mcp.json'), format: 'json', instructions: at('CLAUDE.md'), ownInstructions: false };
    case 'codex': {
      // project scope: .codex/config.toml (read for trusted projects); user scope: $CODEX_HOME/config.toml
      const codexHome = env.CODEX_HOME || join(home, '.codex');
      return scope.global
        ? {
            config: join(codexHome, 'config.toml'),
            format: 'toml',
            instructions: join(codexHome, 'AGENTS.md'),
            ownInstructions: false,
          }
        : {
            config: at('.codex', 'config.toml'),
            format: 'toml',
            instructions: at('AGENTS.md'),
            ownInstructions: false,
          };
    }
    case 'cursor':
      return scope.global
        ? { config: join(home, '.cursor', 'mcp.json'), format: 'json', instructions: null, ownInstructions: true }
        : {
            config: at('.cursor', 'mcp.json'),
            format: 'json',
            instructions: at('.cursor', 'rules', 'svc.mdc'),
            ownInstructions: true,
          };
    case 'gemini':
      return scope.global
        ? {
            config: join(home, '.gemini', 'settings.json'),
            format: 'json',
            instructions: join(home, '.gemini', 'GEMINI.md'),
            ownInstructions: false,
          }
        : {
            config: at('.gemini', 'settings.json'),
            format: 'json',
            instructions: at('GEMINI.md'),
            ownInstructions: false,
          };
  }
}

// The credential is named by an environment variable, never the secret itself.
export type ServerSpec =
  { kind: 'stdio'; command: string; args: string[] } | { kind: 'http'; url: string; tokenEnv: string };

export function stdioSpec(command: string[], project: string | null): ServerSpec {
  return {
    kind: 'stdio',
    command: command[0],
    args: [...command.slice(1), 'mcp', ...(project ? ['--project', project] : [])],
  };
}

export function httpSpec(server: string, project: string | null, tokenEnv: string): ServerSpec {
  const url = new URL(server);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/mcp`;
  url.search = '';
  url.hash = '';
  if (project) url.searchParams.set(HTTP_PROJECT_PARAM, project);
  return { kind: 'http', url: url.toString(), tokenEnv };
}

export function jsonEntry(harness: Exclude<Harness, 'codex'>, spec: ServerSpec): Record<string, unknown> {
  if (spec.kind === 'stdio') return { command: spec.command, args: spec.args };
  switch (harness) {
    case 'claude': // .mcp.json expands ${VAR} in url and headers
      return { type: 'http', url: spec.url, headers: { Authorization: `Bearer \${${spec.tokenEnv}}` } };
    case 'cursor': // mcp.json interpolates ${env:VAR}
      return { url: spec.url, headers: { Authorization: `Bearer \${env:${spec.tokenEnv}}` } };
    case 'gemini': // settings.json resolves $VAR / ${VAR} in its strings; httpUrl is Streamable HTTP
      return { httpUrl: spec.url, headers: { Authorization: `Bearer \${${spec.tokenEnv}}` } };
  }
}

const tomlString = (value: string) => JSON.stringify(value);

// Codex's table: command/args, or url with bearer_token_env_var (Codex reads the token from that variable).
export function tomlBlock(spec: ServerSpec): string {
  const lines = [`[mcp_servers.${SERVER_NAME}]`, '# written by svc agent-setup codex (--remove takes this table out)'];
  if (spec.kind === 'stdio') {
    lines.push(`command = ${tomlString(spec.command)}`, `args = [${spec.args.map(tomlString).join(', ')}]`);
  } else {
    lines.push(`url = ${tomlString(spec.url)}`, `bearer_token_env_var = ${tomlString(spec.tokenEnv)}`);
  }
  return `${lines.join('\n')}\n`;
}

export class SetupFileError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(message);
  }
}

type PlainObject = Record<string, unknown>;
const isObject = (v: unknown): v is PlainObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function parseJsonObject(file: string, text: string): PlainObject {
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new SetupFileError(file, `${file} is not valid JSON (${(err as Error).message}); nothing was changed`);
  }
  if (!isObject(parsed)) throw new SetupFileError(file, `${file} is not a JSON object; nothing was changed`);
  if (parsed.mcpServers !== undefined && !isObject(parsed.mcpServers)) {
    throw new SetupFileError(file, `${file}: mcpServers is not an object; nothing was changed`);
  }
  return parsed;
}

const jsonText = (value: PlainObject) => `${JSON.stringify(value, null, 2)}\n`;

export function mergeJson(file: string, current: string | null, entry: PlainObject): string {
  const doc = parseJsonObject(file, current ?? '');
  const servers = isObject(doc.mcpServers) ? doc.mcpServers : {};
  doc.mcpServers = { ...servers, [SERVER_NAME]: entry };
  return jsonText(doc);
}

export function removeJson(file: string, current: string | null): string | null {
  if (current === null) return null;
  const doc = parseJsonObject(file, current);
  if (!isObject(doc.mcpServers) || !(SERVER_NAME in doc.mcpServers)) return current;
  const servers = { ...doc.mcpServers };
  delete servers[SERVER_NAME];
  if (Object.keys(servers).length > 0) doc.mcpServers = servers;
  else delete doc.mcpServers;
  return Object.keys(doc).length === 0 ? null : jsonText(doc);
}

export function readJsonEntry(file: string, current: string | null): PlainObject | null {
  if (current === null) return null;
  const doc = parseJsonObject(file, current);
  const entry = isObject(doc.mcpServers) ? doc.mcpServers[SERVER_NAME] : undefined;
  return isObject(entry) ? entry : null;
}

// Codex's TOML: only the [mcp_servers.svc] table (and its subtables) is touched, as text; no TOML parser.

const HEADER = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/;
const OUR_TABLE = /^mcp_servers\.(svc|"svc"|'svc')(\.|$)/;

interface Block {
  start: number;
  end: number; // exclusive line index
}

function findTomlBlock(file: string, lines: string[]): Block | null {
  let start = -1;
  for (let i = 0; i < lines.length; i++) {
    const header = HEADER.exec(lines[i]);
    if (!header) continue;
    const ours = OUR_TABLE.test(header[1].replace(/\s*\.\s*/g, '.'));
    if (start < 0 && ours) start = i;
    else if (start >= 0 && !ours) return { start, end: i };
  }
  if (start >= 0) return { start, end: lines.length };
  // svc defined some other way (a dotted key, or an inline table under [mcp_servers]): not ours to edit
  let table = '';
  for (const line of lines) {
    const header = HEADER.exec(line);
    if (header) {
      table = header[1].replace(/\s*\.\s*/g, '.');
      continue;
    }
    const dotted = table === '' && /^\s*mcp_servers\s*\.\s*["']?svc["']?\s*[.=]/.test(line);
    const inTable = table === 'mcp_servers' && /^\s*["']?svc["']?\s*[.=]/.test(line);
    if (dotted || inTable) {
      throw new SetupFileError(
        file,
        `${file} defines mcp_servers.svc other than as a [mcp_servers.svc] table; edit it by hand (nothing was changed)`,
      );
    }
  }
  return null;
}

const splitLines = (text: string) => (text === '' ? [] : text.replace(/\n$/, '').split('\n'));

export function mergeToml(file: string, current: string | null, block: string): string {
  const text = current ?? '';
  const lines = splitLines(text);
  const found = findTomlBlock(file, lines);
  const ours = splitLines(block);
  if (found) {
    // keep a blank line between our table and the next one, as it was
    let end = found.end;
    while (end > found.start && lines[end - 1].trim() === '') end--;
    const next = [...lines.slice(0, found.start), ...ours, ...lines.slice(end, found.end), ...lines.slice(found.end)];
    return `${next.join('\n')}\n`;
  }
  if (lines.length === 0) return block;
  return `${[...lines, '', ...ours].join('\n')}\n`;
}

export function removeToml(file: string, current: string | null): string | null {
  if (current === null) return null;
  const lines = splitLines(current);
  const found = findTomlBlock(file, lines);
  if (!found) return current;
  let start = found.start;
  let end = found.end;
  while (end > start && lines[end - 1].trim() === '') end--;
  // the blank line agent-setup put before the table when it appended it
  if (end === lines.length && start > 0 && lines[start - 1].trim() === '') start--;
  else if (end < lines.length && lines[end].trim() === '') end++;
  const rest = [...lines.slice(0, start), ...lines.slice(end)];
  return rest.length === 0 ? null : `${rest.join('\n')}\n`;
}

export function readTomlEntry(file: string, current: string | null): PlainObject | null {
  if (current === null) return null;
  const lines = splitLines(current);
  const found = findTomlBlock(file, lines);
  if (!found) return null;
  const entry: PlainObject = {};
  for (const line of lines.slice(found.start + 1, found.end)) {
    if (HEADER.test(line)) break; // a subtable
    const kv = /^\s*([A-Za-z0-9_-]+)\s*=\s*(.+?)\s*$/.exec(line);
    if (!kv) continue;
    try {
      entry[kv[1]] = JSON.parse(kv[2].replace(/'([^']*)'/g, (_, s: string) => JSON.stringify(s)));
    } catch {
      entry[kv[1]] = kv[2];
    }
  }
  return entry;
}

export function mergeSection(current: string | null, section: string): string {
  const block = `${MARK_START}\n${section.trimEnd()}\n${MARK_END}`;
  const text = current ?? '';
  const start = text.indexOf(MARK_START);
  const end = text.indexOf(MARK_END);
  if (start >= 0 && end > start) return `${text.slice(0, start)}${block}${text.slice(end + MARK_END.length)}`;
  if (text.trim() === '') return `${block}\n`;
  return `${text.replace(/\n*$/, '\n')}\n${block}\n`;
}

export function removeSection(current: string | null): string | null {
  if (current === null) return null;
  const start = current.indexOf(MARK_START);
  const end = current.indexOf(MARK_END);
  if (start < 0 || end < start) return current;
  let before = current.slice(0, start);
  let after = current.slice(end + MARK_END.length);
  if (after.startsWith('\n')) after = after.slice(1);
  // the blank line agent-setup put before the section when it appended it
  if (after === '' && before.endsWith('\n\n')) before = before.slice(0, -1);
  const rest = before + after;
  return rest.trim() === '' ? null : rest;
}

export function hasSection(current: string | null): boolean {
  return current !== null && current.includes(MARK_START) && current.includes(MARK_END);
}

export function promptHowTo(harness: Harness): string {
  switch (harness) {
    case 'claude':
      return 'Claude Code lists MCP prompts as slash commands: `/svc usher ATL-6` is `/mcp__svc__usher ATL-6` (`advance` also takes the phase: `/mcp__svc__advance ATL-6 implementation`).';
    case 'gemini':
      return 'Gemini CLI lists MCP prompts as slash commands by name: `/svc usher ATL-6` is `/usher ATL-6` (or `/usher --ref=ATL-6`; `advance` also takes the phase).';
    case 'cursor':
      return 'Cursor offers MCP prompts in the chat’s `/` menu: `/svc usher ATL-6` is svc’s prompt `usher` with ref ATL-6 (`advance` also takes the phase).';
    case 'codex':
      return 'Codex does not offer MCP prompts: for `/svc usher ATL-6`, read the item with `get_item` and do what its adapter asks (below); the server’s instructions explain each adapter.';
  }
}

export function instructionsSection(harness: Harness, project: string | null): string {
  const lines = [
    '## svc: the backlog',
    '',
    `This checkout's work is tracked in svc${project ? ` (project \`${project}\`)` : ''}; the \`svc\` MCP server serves it (\`svc agent-setup ${harness} --check\` verifies the connection). Work through its tools, not by editing files about the backlog:`,
    '',
    '1. `next_work`: your lane’s runnable items, ranked, each with its adapter and an entrypoint such as `/svc usher ATL-6`. An empty lane says where the work is.',
    '2. `claim` the top one (held while you are connected; `release` gives it back; `my_work` lists what you hold and claims you lost).',
    `3. Run the entrypoint: it is the svc server's MCP prompt of that name, which renders the item, the gates ahead and the steps. ${promptHowTo(harness)}`,
    '4. Do the work; record it on the item (`comment`, `update_item`); move it on with `set_status` (a refusal lists each gate and what satisfies it).',
    '5. `next_work` again.',
    '',
    'Adapters: refine (write the spec), shepherd (plan an epic), conduct (implement), advance (carry an implementation on), polish (finishing review), usher (deploy), wait (blocked: nothing to do yet). `get_item` reads an item whole; `list_items` finds others.',
  ];
  return lines.join('\n');
}

// Cursor's rules file is svc's own: front matter, then the section between the markers.
export function cursorRulesFile(section: string): string {
  return `---\ndescription: svc, the backlog this checkout's work is tracked in (MCP server svc)\nalwaysApply: true\n---\n\n${mergeSection(null, section)}`;
}
