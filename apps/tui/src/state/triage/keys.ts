import { KEYMAP } from '../../keys/keymap';
import { reduceEdgeKey } from '../edge-select';
import { selectedItem } from '../selectors';
import type { FrontierTab, State, TriageCommand } from '../state';
import { treeOptions } from '../tree';
import type { FrontierItemWire } from '../../wire';
import { KeyAction, operatorBlock, PRIORITY_ORDER, rowByRef, status, targets, triage, TriageHelpers } from './common';
import { confirm, describeCommand, runOrConfirm } from './commands';
import { picker, PRIORITY_OPTIONS, reduceDialogKey } from './dialogs';
import { jumpBack } from './navigation';
import { paletteOptions } from './palette';

function shiftPriority(state: State, refs: string[], delta: 1 | -1): State {
  const commands: TriageCommand[] = [];
  const unchanged: string[] = [];
  for (const ref of refs) {
    const row = rowByRef(state, ref)?.row;
    if (!row) continue;
    const at = PRIORITY_ORDER.indexOf(row.priority as (typeof PRIORITY_ORDER)[number]);
    const to = PRIORITY_ORDER[Math.min(PRIORITY_ORDER.length - 1, Math.max(0, (at < 0 ? 1 : at) + delta))];
    if (to === row.priority) unchanged.push(ref);
    else commands.push({ op: 'priority', ref, to });
  }
  if (commands.length === 0) {
    return status(state, `${unchanged.join(', ')} already at ${delta > 0 ? 'high' : 'low'} priority`, 'warn');
  }
  return runOrConfirm(state, ' Priority ', commands);
}

// refused under --read-only, hidden from the footer
const WRITES: ReadonlySet<KeyAction> = new Set(KEYMAP.filter((b) => b.writes).map((b) => b.action));

function range(state: State, tab: FrontierTab, from: string, to: string): string[] {
  const rows = state.frontier?.[tab] ?? [];
  const a = rows.findIndex((r) => r.item_id === from);
  const b = rows.findIndex((r) => r.item_id === to);
  if (a < 0 || b < 0) return [to];
  const [lo, hi] = a <= b ? [a, b] : [b, a];
  return rows.slice(lo, hi + 1).map((r) => r.item_id);
}

function markedStatus(state: State): State {
  const n = state.triage.marked.length;
  return status(
    state,
    n === 0 ? 'no row marked' : `${n} marked (+): s, +, -, =, b, f apply to all · space unmarks · esc clears`,
    'info',
  );
}

function blockOrUnblock(state: State, refs: string[]): State {
  const rows = refs.map((r) => rowByRef(state, r)?.row).filter((r): r is FrontierItemWire => Boolean(r));
  const blocked = rows.filter((r) => operatorBlock(r) !== null);
  if (rows.length > 0 && blocked.length === rows.length) {
    return confirm(
      state,
      ' Unblock ',
      blocked.map((r) => `unblock ${r.item_id} (blocked: ${operatorBlock(r) || 'no reason given'})`),
      blocked.map((r) => ({ op: 'unblock', ref: r.item_id })),
    );
  }
  const toBlock = rows.filter((r) => operatorBlock(r) === null).map((r) => r.item_id);
  return {
    ...state,
    dialog: {
      kind: 'input',
      purpose: 'block',
      refs: toBlock,
      title: ` Block ${toBlock.length === 1 ? toBlock[0] : `${toBlock.length} items`} `,
      prompt: 'reason',
      value: '',
    },
  };
}

function freezeOrUnfreeze(state: State, refs: string[]): State {
  const commands: TriageCommand[] = refs.map((ref) =>
    rowByRef(state, ref)?.tab === 'frozen' ? { op: 'unfreeze', ref } : { op: 'freeze', ref },
  );
  return confirm(
    state,
    ' Freeze ',
    [
      ...commands.map((c) => describeCommand(c).text),
      '',
      'A frozen item leaves the active frontier until it is unfrozen.',
    ],
    commands,
  );
}

function releaseClaims(state: State, refs: string[]): State {
  const commands: TriageCommand[] = [];
  const missing: string[] = [];
  for (const ref of refs) {
    const claim = state.claims[ref];
    if (!claim) missing.push(ref);
    else commands.push({ op: 'release', ref, session: claim.session_id, holder: claim.actor ?? claim.harness });
  }
  if (commands.length === 0) return status(state, `${missing.join(', ')}: not claimed, nothing to release`, 'warn');
  return confirm(
    state,
    ' Release claim ',
    [
      ...commands.map((c) => describeCommand(c).text),
      ...(missing.length ? ['', `not claimed (skipped): ${missing.join(', ')}`] : []),
      '',
      'The item goes back to the frontier; the session keeps running.',
    ],
    commands,
  );
}

function confirmUndo(state: State): State {
  const last = state.triage.undo[state.triage.undo.length - 1];
  if (!last) return status(state, 'nothing to undo (no change made in this TUI yet)', 'info');
  return confirm(
    state,
    ' Undo ',
    [
      'The last change is reversed by its inverse write:',
      ...last.map((c) => `  ${describeCommand(c).text}`),
      ...last.slice(0, 3).map((c) => `  (${describeCommand(c).cli})`),
    ],
    last,
    true,
  );
}

function confirmRedo(state: State): State {
  const last = state.triage.redo[state.triage.redo.length - 1];
  if (!last) return status(state, 'nothing to redo (z undoes a change; C-r makes it again)', 'info');
  return confirm(
    state,
    ' Redo ',
    [
      'The change undone last is made again:',
      ...last.map((c) => `  ${describeCommand(c).text}`),
      ...last.slice(0, 3).map((c) => `  (${describeCommand(c).cli})`),
    ],
    last,
    false,
    true,
  );
}

export function reduceTriageKey(state: State, action: KeyAction, helpers: TriageHelpers): State | null {
  if (WRITES.has(action) && state.readOnly) {
    return status(state, 'read-only: changes are disabled (started with --read-only)', 'warn');
  }
  const refs = targets(state);
  const one = refs.length === 1 ? rowByRef(state, refs[0])?.row : undefined;
  const needItem = (): State => status(state, 'no item selected', 'warn');
  switch (action) {
    case 'status_pick':
    case 'status_next':
      if (refs.length === 0) return needItem();
      return picker(
        state,
        'status',
        refs,
        ` Status of ${refs.length === 1 ? refs[0] : `${refs.length} items`} `,
        null,
        {
          next: action === 'status_next',
        },
      );
    case 'priority_up':
    case 'priority_down':
      if (refs.length === 0) return needItem();
      return shiftPriority(state, refs, action === 'priority_up' ? 1 : -1);
    case 'priority_pick':
      if (refs.length === 0) return needItem();
      return picker(
        state,
        'priority',
        refs,
        ` Priority of ${refs.length === 1 ? refs[0] : `${refs.length} items`} `,
        PRIORITY_OPTIONS.map((o) => ({ ...o, current: one?.priority === o.value })),
      );
    case 'title_edit': {
      const item = selectedItem(state);
      if (!item) return needItem();
      return {
        ...state,
        dialog: {
          kind: 'input',
          purpose: 'title',
          refs: [item.item_id],
          title: ` Title of ${item.item_id} `,
          prompt: 'title',
          value: item.title,
        },
      };
    }
    case 'comment_add': {
      const item = selectedItem(state);
      if (!item) return needItem();
      return {
        ...state,
        dialog: {
          kind: 'input',
          purpose: 'comment',
          refs: [item.item_id],
          title: ` Comment on ${item.item_id} `,
          prompt: 'comment',
          value: '',
        },
      };
    }
    case 'item_new':
      if (!state.project) return status(state, 'no project open', 'warn');
      return {
        ...state,
        dialog: {
          kind: 'input',
          purpose: 'new-title',
          refs: [],
          title: ` New item in ${state.project} `,
          prompt: 'title',
          value: '',
        },
      };
    case 'block_toggle':
      if (refs.length === 0) return needItem();
      return blockOrUnblock(state, refs);
    case 'freeze_toggle':
      if (refs.length === 0) return needItem();
      return freezeOrUnfreeze(state, refs);
    case 'claim_release':
      if (refs.length === 0) return needItem();
      return releaseClaims(state, refs);
    case 'undo':
      return confirmUndo(state);
    case 'redo':
      return confirmRedo(state);
    case 'body_edit': {
      const item = selectedItem(state);
      if (!item) return needItem();
      return status(state, `opening ${item.item_id} in the editor…`, 'info');
    }
    case 'dependency_add': {
      const item = selectedItem(state);
      if (!item) return needItem();
      return picker(state, 'dependency', [item.item_id], ` ${item.item_id} waits on… `, null);
    }
    case 'mark_toggle': {
      const item = selectedItem(state);
      if (!item) return state;
      const marked = state.triage.marked.includes(item.item_id)
        ? state.triage.marked.filter((r) => r !== item.item_id)
        : [...state.triage.marked, item.item_id];
      return markedStatus(triage(state, { marked, anchor: item.item_id }));
    }
    case 'mark_range': {
      const item = selectedItem(state);
      if (!item || (state.tab !== 'runnable' && state.tab !== 'blocked' && state.tab !== 'frozen')) return state;
      const anchor = state.triage.anchor ?? item.item_id;
      const add = range(state, state.tab, anchor, item.item_id);
      return markedStatus(
        triage(state, { marked: [...new Set([...state.triage.marked, ...add])], anchor: item.item_id }),
      );
    }
    case 'palette':
      return picker(state, 'palette', [], ' : ', paletteOptions(state, ''));
    case 'edge_next':
    case 'edge_prev':
    case 'edge_remove':
      return reduceEdgeKey(state, action);
    case 'dep_tree': {
      const item = selectedItem(state);
      if (!item) return needItem();
      // the tree is built from the detail pane's parts: opening it loads them (options stay null until then)
      const opened = helpers.settle({ ...state, detailOpen: true, treeEdges: {} });
      return picker(
        opened,
        'tree',
        [item.item_id],
        ` Dependencies of ${item.item_id} `,
        treeOptions(opened, item.item_id),
      );
    }
    case 'jump_back':
      return jumpBack(state, helpers);
    default:
      return reduceDialogKey(state, action, helpers);
  }
}
