import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

// Send keys, then poll the pane until the expected text shows (never a fixed sleep).

export function tmuxAvailable(): boolean {
  return spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
}

const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

export interface TmuxOptions {
  width: number;
  height: number;
  env: Record<string, string>;
  command: string[];
  cwd?: string;
}

export class TmuxSession {
  readonly socket = `svc-tui-${process.pid}-${randomBytes(3).toString('hex')}`;
  readonly name = 'tui';
  private last = '';

  constructor(private readonly options: TmuxOptions) {}

  private tmux(args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  }

  start(): void {
    const env = Object.entries({
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
      NCURSES_NO_UTF8_ACS: '1',
      ...this.options.env,
    })
      .map(([k, v]) => `${k}=${quote(v)}`)
      .join(' ');
    // after the program ends the pane stays, so the test can read what it left on the terminal
    const shell = `env -i PATH=${quote(process.env.PATH ?? '')} HOME=${quote(process.env.HOME ?? '/tmp')} ${env} ${this.options.command
      .map(quote)
      .join(' ')}; echo "[exited $?]"; sleep 3600`;
    this.tmux([
      'new-session',
      '-d',
      '-s',
      this.name,
      '-x',
      String(this.options.width),
      '-y',
      String(this.options.height),
      ...(this.options.cwd ? ['-c', this.options.cwd] : []),
      shell,
    ]);
    this.tmux(['set-option', '-t', this.name, 'status', 'off']);
  }

  keys(...keys: string[]): void {
    for (const key of keys) this.tmux(['send-keys', '-t', this.name, key]);
  }

  type(text: string): void {
    this.tmux(['send-keys', '-t', this.name, '-l', text]);
  }

  capture(): string {
    this.last = this.tmux(['capture-pane', '-p', '-t', this.name]);
    return this.last;
  }

  captureEscapes(): string {
    return this.tmux(['capture-pane', '-e', '-p', '-t', this.name]);
  }

  history(lines = 200): string {
    return this.tmux(['capture-pane', '-p', '-t', this.name, '-S', String(-lines)]);
  }

  lines(): string[] {
    return this.capture().split('\n');
  }

  display(format: string): string {
    return this.tmux(['display-message', '-p', '-t', this.name, format]).trim();
  }

  resize(width: number, height: number): void {
    this.tmux(['resize-window', '-t', this.name, '-x', String(width), '-y', String(height)]);
  }

  async waitFor(expected: string | RegExp | ((screen: string) => boolean), timeoutMs = 30_000): Promise<string> {
    const test =
      typeof expected === 'function'
        ? expected
        : (s: string) => (typeof expected === 'string' ? s.includes(expected) : expected.test(s));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.capture();
      if (test(screen)) return screen;
      if (Date.now() > deadline) {
        throw new Error(`screen never showed ${String(expected)} within ${timeoutMs} ms; last screen:\n${screen}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  selectedLine(): string {
    return this.lines().find((l) => l.startsWith('›')) ?? '';
  }

  async select(text: string, maxMoves = 200): Promise<void> {
    for (let i = 0; i < maxMoves; i++) {
      const screen = this.capture();
      const lines = screen.split('\n');
      const selected = lines.findIndex((l) => l.startsWith('›'));
      if (selected >= 0 && lines[selected].includes(text)) return;
      const target = lines.findIndex((l) => l.includes(text) && /^[ ›]\s*\S/.test(l));
      const down = target < 0 || selected < 0 || target > selected;
      const before = lines[selected] ?? '';
      this.keys(down ? 'j' : 'k');
      await this.waitFor((s) => (s.split('\n').find((l) => l.startsWith('›')) ?? '') !== before, 5_000).catch(
        () => undefined,
      );
    }
    throw new Error(`could not select a row with ${text}; last screen:\n${this.last}`);
  }

  kill(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-server']);
  }
}
