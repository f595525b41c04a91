import { createColors } from 'picocolors';

export const COLOR_MODES = ['auto', 'always', 'never'] as const;
export type ColorMode = (typeof COLOR_MODES)[number];

export type Paint = ReturnType<typeof createColors>;

// auto: colour only on a terminal, never with NO_COLOR set (https://no-color.org: any non-empty value) or TERM=dumb.
export function colorEnabled(
  mode: ColorMode,
  stream: { isTTY?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  if (mode === 'always') return true;
  if (mode === 'never') return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return Boolean(stream.isTTY);
}

let mode: ColorMode = 'auto';
let out: Paint = createColors(colorEnabled(mode, process.stdout));
let err: Paint = createColors(colorEnabled(mode, process.stderr));

export function setColorMode(next: ColorMode): void {
  mode = next;
  out = createColors(colorEnabled(mode, process.stdout));
  err = createColors(colorEnabled(mode, process.stderr));
}

export const paint = (): Paint => out;
export const paintErr = (): Paint => err;

// The word itself always stays: colour is never the only signal.
export function tone(word: string | null | undefined, p: Paint = out): string {
  const text = word ?? '';
  switch (text) {
    case 'runnable':
    case 'ready':
    case 'dispatched':
    case 'approved':
    case 'done':
    case 'yes':
      return p.green(text);
    case 'blocked':
    case 'denied':
    case 'expired':
    case 'failed':
      return p.red(text);
    case 'frozen':
    case 'wait':
    case 'pending':
    case 'dry_run':
    case 'operator_cancelled':
      return p.yellow(text);
    case 'high':
      return p.bold(text);
    default:
      return text;
  }
}
