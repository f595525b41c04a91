import type { ChangeRecordWire } from '@app/contracts';

import { truncateWidth } from './display-width';

// One wording for the command line and the TUI. Plain text: the caller makes it terminal-safe.

export function changeValue(value: unknown, width = 60): string {
  if (value === null || value === undefined) return '∅';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return truncateWidth(text, width);
}

export function changeWho(change: ChangeRecordWire): string {
  const who = change.actor ?? (change.path === 'sweep' ? 'svc (sweep)' : '(unknown)');
  const session =
    change.session_id !== null ? ` #${change.session_id}${change.harness ? ` ${change.harness}` : ''}` : '';
  return `${who}${session}${change.forced ? ' (forced)' : ''}`;
}

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
