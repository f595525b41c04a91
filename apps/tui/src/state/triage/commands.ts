import { indexOfKey, keyAt, rowCount } from '../selectors';
import { FrontierTab, State, TriageCommand, TriageResult, UNDO_DEPTH } from '../state';
import type { Action } from '../actions';
import { rowByRef, status, triage, TriageHelpers } from './common';
import { selectArrived } from './navigation';

export function describeCommand(c: TriageCommand): { text: string; cli: string } {
  switch (c.op) {
    case 'status':
      return { text: `move ${c.ref} to ${c.to}`, cli: `svc items status ${c.ref} ${c.to}` };
    case 'priority':
      return { text: `set the priority of ${c.ref} to ${c.to}`, cli: `svc items update ${c.ref} priority ${c.to}` };
    case 'title':
      return { text: `retitle ${c.ref} "${c.to}"`, cli: `svc items update ${c.ref} title '…'` };
    case 'block':
      return { text: `block ${c.ref}: ${c.reason}`, cli: `svc items block ${c.ref} --reason '…'` };
    case 'unblock':
      return { text: `unblock ${c.ref}`, cli: `svc items unblock ${c.ref}` };
    case 'freeze':
      return { text: `freeze ${c.ref}`, cli: `svc items freeze ${c.ref}` };
    case 'unfreeze':
      return { text: `unfreeze ${c.ref}`, cli: `svc items unfreeze ${c.ref}` };
    case 'release':
      return {
        text: `release the claim of ${c.holder} (session ${c.session}) on ${c.ref}`,
        cli: `POST /v1/sessions/${c.session}/release`,
      };
    case 'create':
      return {
        text: `create "${c.title}" in ${c.project} (${c.priority})${c.blockedBy ? `, blocked by ${c.blockedBy}` : ''}`,
        cli: `svc items create --project ${c.project} --title '…' --priority ${c.priority}`,
      };
    case 'dep-add':
      return {
        text: `${c.dependent} waits on ${c.blocker} (${c.gate_point}, ${c.satisfaction})`,
        // the same edge the undo makes: its gate point and satisfaction, not the defaults
        cli: `svc items dependency add ${c.dependent} ${c.blocker} --gate-point ${c.gate_point} --satisfaction ${c.satisfaction}`,
      };
    case 'dep-remove':
      return {
        text: `remove the edge: ${c.dependent} no longer waits on ${c.blocker} at ${c.gate_point}`,
        cli: `svc items dependency remove ${c.dependent} ${c.blocker} --gate-point ${c.gate_point}`,
      };
    case 'body':
      return { text: `rewrite the body of ${c.ref}`, cli: `svc items update ${c.ref} body --stdin` };
    case 'section':
      return { text: `rewrite section ${c.name} of ${c.ref}`, cli: `svc sections upsert ${c.ref} ${c.name} --stdin` };
    case 'comment':
      return { text: `comment on ${c.ref}`, cli: `svc items comment ${c.ref} -` };
  }
}

export function confirm(
  state: State,
  title: string,
  lines: string[],
  commands: TriageCommand[],
  undo = false,
  redo = false,
): State {
  return { ...state, dialog: { kind: 'triage-confirm', title, lines, commands, focus: 'no', undo, redo } };
}

export function startRun(state: State, commands: TriageCommand[], undo = false, redo = false): State {
  if (commands.length === 0) return { ...state, dialog: null };
  const id = state.triage.runs + 1;
  return {
    ...triage(state, { run: { id, commands, undo, ...(redo ? { redo } : {}) }, runs: id }),
    dialog: null,
    status: {
      text: `${describeCommand(commands[0]).text}${commands.length > 1 ? ` (+${commands.length - 1})` : ''}…`,
      tone: 'info',
      at: state.now,
    },
  };
}

export function runOrConfirm(state: State, title: string, commands: TriageCommand[]): State {
  if (commands.length <= 1) return startRun(state, commands);
  return confirm(
    state,
    title,
    [`${commands.length} items:`, ...commands.map((c) => `  ${describeCommand(c).text}`)],
    commands,
  );
}

export function runDone(state: State, action: Extract<Action, { type: 'triage_done' }>, helpers: TriageHelpers): State {
  if (state.triage.run?.id !== action.id) return state;
  const run = state.triage.run;
  const done = action.results.filter((r) => r.ok);
  const refused = action.results.filter((r) => !r.ok);
  const inverses = done
    .map((r) => r.inverse)
    .filter((c): c is TriageCommand => Boolean(c))
    .reverse();
  const undo =
    run.undo || inverses.length === 0 ? state.triage.undo : [...state.triage.undo, inverses].slice(-UNDO_DEPTH);
  // an undo that went through leaves the stack; one refused stays, to try again once the gate passes
  const popped = run.undo && refused.length === 0 ? undo.slice(0, -1) : undo;
  // An undo done goes on the redo stack; a redo done leaves it; any other change empties it, as in every editor.
  let redo = state.triage.redo;
  if (run.undo && refused.length === 0 && inverses.length > 0) redo = [...redo, inverses].slice(-UNDO_DEPTH);
  else if (run.redo && refused.length === 0) redo = redo.slice(0, -1);
  else if (!run.undo && !run.redo && done.length > 0) redo = [];
  const created = done.find((r) => r.created)?.created ?? null;
  // Block, unblock, freeze and unfreeze move the item out of the tab shown: the cursor stays in the tab, on the row
  // after it, so triage goes on down the list.
  const only = action.results.length === 1 && done.length === 1 ? done[0].command : null;
  const leaves = only !== null && BUCKET_MOVES.has(only.op) && 'ref' in only ? only.ref : null;
  const followed = only && 'ref' in only && !leaves ? only.ref : null;
  let next = triage(state, {
    run: null,
    undo: popped,
    redo,
    marked: refused.length === 0 ? [] : state.triage.marked,
    arriving: created ?? followed ?? state.triage.arriving,
    arrivingTab: created ? createdTab(state, done) : followed ? null : state.triage.arrivingTab,
  });
  if (leaves) next = stepPast(next, leaves);
  // the stream may have shown the change before the daemon's answers came back: select it now, not at the next
  // frontier change
  if (next.triage.arriving) next = selectArrived(next, helpers);
  if (refused.length === 0) {
    const text =
      done.length === 1 ? done[0].message : `${done.length} changes made (${done.map((r) => r.message).join('; ')})`;
    return status(next, run.undo ? `undone: ${text}` : run.redo ? `redone: ${text}` : text, 'ok');
  }
  const lines: string[] = [];
  if (action.results.length > 1) {
    const made = done.length > 0 ? ` · ${done.length} of ${action.results.length} done` : '';
    lines.push(`${refused.length} of ${action.results.length} refused${made}.`, '');
  }
  for (const r of refused) {
    lines.push(`✗ ${describeCommand(r.command).text}: ${r.message}`);
    for (const l of r.detail ?? []) lines.push(`    ${l}`);
  }
  if (refused.every((r) => r.unreachable)) {
    const head = `Not sent: ${refused[0].message}`;
    const words = lines.map((l) => l.replace(/ refused([ .])/, ' not sent$1'));
    next = status(
      next,
      `not sent: the daemon is unreachable (${refused.length} change${refused.length > 1 ? 's' : ''})`,
      'error',
    );
    const tail = run.undo
      ? 'The undo stays on the stack (z tries again).'
      : 'Nothing changed; try again once it is back.';
    return {
      ...next,
      dialog: { kind: 'refusal', title: ' Daemon unreachable ', lines: [head, '', ...words, '', tail] },
    };
  }
  if (run.undo) lines.push('', 'The undo was refused; it stays on the stack (z tries again).');
  next = status(next, `refused: ${refused[0].message}`, 'error');
  return { ...next, dialog: { kind: 'refusal', title: run.undo ? ' Undo refused ' : ' Refused ', lines } };
}

const BUCKET_MOVES = new Set<TriageCommand['op']>(['block', 'unblock', 'freeze', 'unfreeze']);

function stepPast(state: State, ref: string): State {
  const tab = state.tab;
  const at = indexOfKey(state, tab, ref);
  if (at < 0 || state.cursors[tab].key !== ref) return state;
  const n = rowCount(state, tab);
  const index = at + 1 < n ? at + 1 : at - 1;
  if (index < 0) return state;
  // selected by key: when the frontier drops the item, the row after it is found one place up
  return { ...state, cursors: { ...state.cursors, [tab]: { key: keyAt(state, tab, index), index } } };
}

// Where a created item will live: an item created waiting on an open item (one the frontier shows) is blocked;
// until the frontier shows it there, an answer from between the create and the dependency still has it runnable.
function createdTab(state: State, done: readonly TriageResult[]): FrontierTab | null {
  const create = done.find((r) => r.created)?.command;
  if (create?.op !== 'create' || !create.blockedBy) return null;
  return rowByRef(state, create.blockedBy) ? 'blocked' : null;
}
