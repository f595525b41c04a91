import type { ChangeRecordWire } from '@app/contracts';

import { truncateWidth } from './display-width';

// The words a change record is shown in, the same in the command line (`svc items history`, `svc history`)
// and the TUI (Events tab, the detail pane's History): who, and what (before → after). Plain text: the caller passes
// it through terminal-text.ts (the CLI's tables, the TUI's clean/fit) before it reaches a terminal.

// A changed value: strings as they are, anything else as compact JSON, long ones cut (by display width).
export function changeValue(value: unknown, width = 60): string {
  if (value === null || value === undefined) return '∅';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return truncateWidth(text, width);
}

// Who: the actor, and for an agent its session and harness; `(forced)` when an admin overrode a claim.
export function changeWho(change: ChangeRecordWire): string {
  const who = change.actor ?? (change.path === 'sweep' ? 'svc (sweep)' : '(unknown)');
  const session =
    change.session_id !== null ? ` #${change.session_id}${change.harness ? ` ${change.harness}` : ''}` : '';
  return `${who}${session}${change.forced ? ' (forced)' : ''}`;
}

// What: "title: old → new" for a field of the item, else the object and what happened to it.
export function changeWhat(change: ChangeRecordWire): string {
  if (change.field && change.object === 'item')
    return `${change.field}: ${changeValue(change.before)} → ${changeValue(change.after)}`;
  const object = change.object === 'item' ? 'item' : `${change.object} ${change.object_ref ?? ''}`.trim();
  if (change.object === 'item' && change.action === 'created') return `created ${changeValue(change.after)}`;
  if (change.object === 'comment' && change.action === 'created') {
    const body = (change.after as { body?: unknown } | null)?.body;
    return `commented: ${changeValue(typeof body === 'string' ? body.replace(/\s+/g, ' ').trim() : body)}`;
  }
  if (change.object === 'section' && change.action === 'changed') {
    return `section ${change.object_ref ?? ''} changed`;
  }
  return `${object} ${change.action}`;
}
