import { MAIN_SCREEN_KEYS } from './main-screen';
import { OVERLAY_KEYS } from './overlays';
import type { KeyAction, KeyBinding, Scope } from './vocabulary';

export { KEY_ACTIONS, SCOPES } from './vocabulary';
export type { KeyAction, KeyBinding, Scope } from './vocabulary';

export const KEYMAP: readonly KeyBinding[] = [...MAIN_SCREEN_KEYS, ...OVERLAY_KEYS];

export const DANGEROUS_ACTIONS: ReadonlySet<KeyAction> = new Set(
  KEYMAP.filter(
    (b) =>
      b.dangerous &&
      b.scope !== 'charge' &&
      b.scope !== 'confirm' &&
      b.scope !== 'approve' &&
      b.scope !== 'revoke' &&
      b.scope !== 'decide',
  ).map((b) => b.action),
);

// Scopes stacked at once: the first binding found wins, so a key may appear only once in a stack.
export const SCOPE_STACKS: readonly (readonly Scope[])[] = [
  ['always', 'frontier', 'list', 'global'],
  ['always', 'machines', 'list', 'global'],
  ['always', 'events', 'list', 'global'],
  ['always', 'empty', 'global'],
  ['always', 'failure'],
  ['always', 'filter'],
  ['always', 'help'],
  ['always', 'charge'],
  ['always', 'code'],
  ['always', 'confirm'],
  ['always', 'approve'],
  ['always', 'projects'],
  ['always', 'picker'],
  ['always', 'input'],
  ['always', 'decide'],
  ['always', 'refusal'],
  ['always', 'view'],
  ['always', 'revoke'],
  ['always', 'history'],
  ['always', 'comment'],
];

export class KeymapError extends Error {}

// A duplicate key in one scope, or in two scopes that are active together, stops the TUI at start.
export function validateKeymap(keymap: readonly KeyBinding[] = KEYMAP): void {
  const problems: string[] = [];
  for (const stack of SCOPE_STACKS) {
    const seen = new Map<string, KeyBinding>();
    for (const binding of keymap) {
      if (!stack.includes(binding.scope)) continue;
      for (const key of binding.keys) {
        const other = seen.get(key);
        if (other && !(other.action === binding.action && other.scope === binding.scope)) {
          problems.push(
            `key "${key}" is bound to ${other.action} (${other.scope}) and ${binding.action} (${binding.scope})`,
          );
        }
        seen.set(key, binding);
      }
    }
  }
  for (const binding of keymap) {
    if (new Set(binding.keys).size !== binding.keys.length) problems.push(`${binding.action} lists a key twice`);
    if (binding.keys.length === 0) problems.push(`${binding.action} has no key`);
  }
  if (problems.length > 0) throw new KeymapError(`invalid keymap: ${[...new Set(problems)].join('; ')}`);
}

export function stackFor(scope: Scope): readonly Scope[] {
  return SCOPE_STACKS.find((stack) => stack[1] === scope) ?? ['always', scope];
}

export function resolveKey(key: string, scope: Scope, keymap: readonly KeyBinding[] = KEYMAP): KeyBinding | null {
  for (const s of stackFor(scope)) {
    const found = keymap.find((b) => b.scope === s && b.keys.includes(key));
    if (found) return found;
  }
  return null;
}

export function keyName(
  ch: string | undefined,
  key: { name?: string; full?: string; ctrl?: boolean; meta?: boolean; shift?: boolean },
): string | null {
  if (key.name === 'return') return null; // blessed reports \r twice: as 'enter' and as 'return'
  if (key.name === 'linefeed') return 'enter';
  if (ch && ch.length === 1 && !key.ctrl && !key.meta && ch >= ' ' && ch !== '\x7f' && key.name !== 'space') return ch;
  if (key.name === 'space') return 'space';
  return key.full ?? key.name ?? null;
}
