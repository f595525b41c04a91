import { spawn } from 'node:child_process';

import type { State, UserCommand } from '../state/state';
import type { ItemWire } from '../wire';
import { describe, EffectsContext } from './context';

// Titles come from other people: in a shell command every value is single-quoted, in a URL {ref} and {title} are
// URL-encoded, and the opener gets the URL as one argument (no shell).

const OUTPUT_LIMIT = 64 * 1024;
const RUN_TIMEOUT_MS = 60_000;
const SCHEMES = /^(https?|mailto):/i;

export function linkOf(item: Pick<ItemWire, 'github_issue' | 'body'>): string | null {
  const issue = item.github_issue?.trim() ?? '';
  if (/^https?:\/\/\S+$/i.test(issue)) return issue;
  const short = /^([\w.-]+)\/([\w.-]+)#(\d+)$/.exec(issue);
  if (short) return `https://github.com/${short[1]}/${short[2]}/issues/${short[3]}`;
  const inBody = /https?:\/\/[^\s<>()[\]"'`]+/i.exec(item.body ?? '');
  return inBody ? inBody[0].replace(/[.,;:!?]+$/, '') : null;
}

export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function fillTemplate(
  template: string,
  values: { ref: string; title: string; url: string | null },
  how: 'shell' | 'url',
): string {
  return template.replace(/\{(ref|title|url)\}/g, (_m, name: 'ref' | 'title' | 'url') => {
    const value = values[name] ?? '';
    if (how === 'shell') return shellQuote(value);
    return name === 'url' ? value : encodeURIComponent(value);
  });
}

export class External {
  constructor(
    private readonly ctx: EffectsContext,
    private readonly opener: string,
  ) {}

  onAction(previous: State, next: State): void {
    const request = next.external;
    if (!request || request.id === previous.external?.id) return;
    const command = request.command === null ? null : next.userCommands.find((c) => c.name === request.command);
    if (command === undefined) return;
    void this.handle(request.ref, command);
  }

  private status(text: string, tone: 'info' | 'ok' | 'warn' | 'error'): void {
    this.ctx.dispatch({ type: 'status', text, tone });
  }

  private async handle(ref: string, command: UserCommand | null): Promise<void> {
    let item: ItemWire;
    try {
      item = await this.ctx.config.api.item(ref);
    } catch (err) {
      this.status(`${ref}: ${describe(err)}`, 'error');
      return;
    }
    const url = linkOf(item);
    const values = { ref: item.item_id, title: item.title, url };
    if (command === null) {
      if (!url) {
        this.status(`${ref} has no link (set github_issue, or put a URL in its body)`, 'warn');
        return;
      }
      this.open(url, ref);
      return;
    }
    const template = command.run ?? command.open ?? '';
    if (template.includes('{url}') && !url) {
      this.status(`${command.name}: ${ref} has no link for {url}`, 'warn');
      return;
    }
    if (command.open) {
      const target = fillTemplate(command.open, values, 'url');
      if (!SCHEMES.test(target)) {
        this.status(`${command.name}: not an http(s) or mailto URL: ${target.slice(0, 80)}`, 'warn');
        return;
      }
      this.open(target, `${command.name} ${ref}`);
      return;
    }
    this.run(fillTemplate(template, values, 'shell'), `${command.name} ${ref}`);
  }

  private open(url: string, what: string): void {
    if (!SCHEMES.test(url)) {
      this.status(`${what}: the link is not an http(s) URL, not opened: ${url.slice(0, 80)}`, 'warn');
      return;
    }
    try {
      const child = spawn(this.opener, [url], { stdio: 'ignore', detached: true });
      child.once('error', (err) =>
        this.status(`opener ${this.opener}: ${err.message} (set "opener" in tui.json)`, 'error'),
      );
      child.once('spawn', () => this.status(`opened ${url}`, 'ok'));
      child.unref();
    } catch (err) {
      this.status(`opener ${this.opener}: ${(err as Error).message}`, 'error');
    }
  }

  private run(commandLine: string, title: string): void {
    this.status(`running ${title}…`, 'info');
    const child = spawn('/bin/sh', ['-c', commandLine], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const take = (chunk: Buffer) => {
      if (out.length < OUTPUT_LIMIT) out += chunk.toString('utf8');
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const timer = setTimeout(() => child.kill('SIGTERM'), RUN_TIMEOUT_MS);
    timer.unref();
    const done = (code: number | null, signal: string | null, error?: Error) => {
      clearTimeout(timer);
      if (this.ctx.stopped) return;
      // eslint-disable-next-line no-control-regex
      const text = out.slice(0, OUTPUT_LIMIT).replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
      const lines = text.replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n');
      const how = error ? error.message : signal ? `stopped by ${signal}` : `exit ${code}`;
      if (out.length >= OUTPUT_LIMIT) lines.push(`… output cut at ${OUTPUT_LIMIT / 1024} KiB`);
      this.ctx.dispatch({ type: 'view_open', title: `${title} (${how})`, lines: text ? lines : ['(no output)'] });
      this.status(`${title}: ${how}`, code === 0 ? 'ok' : 'warn');
    };
    child.once('error', (err) => done(null, null, err));
    child.once('close', (code, signal) => done(code, signal));
  }
}
