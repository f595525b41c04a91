import { selectedItem } from '../selectors';
import type { FrontierTab, State, StatusTone, TriageState } from '../state';
import type { Action } from '../actions';
import type { FrontierItemWire } from '../../wire';

export const PRIORITY_ORDER = ['low', 'medium', 'high'] as const;
export const BUCKETS: readonly FrontierTab[] = ['runnable', 'blocked', 'frozen'];
export const OPERATOR_BLOCK = 'blocked by operator';
// The longest comment typed in the TUI (a longer one: `svc items comment <ref> --file`).
export const COMMENT_MAX = 8000;

export type KeyAction = Extract<Action, { type: 'key' }>['action'];

export interface TriageHelpers {
  selectProject(state: State, project: string): State;
  settle(state: State): State;
}

export function status(state: State, text: string, tone: StatusTone): State {
  return { ...state, status: { text, tone, at: state.now } };
}

export function triage(state: State, patch: Partial<TriageState>): State {
  return { ...state, triage: { ...state.triage, ...patch } };
}

export function rowByRef(state: State, ref: string): { row: FrontierItemWire; tab: FrontierTab } | null {
  for (const tab of BUCKETS) {
    const row = state.frontier?.[tab].find((r) => r.item_id === ref);
    if (row) return { row, tab };
  }
  return null;
}

export function operatorBlock(row: FrontierItemWire): string | null {
  const r = row.blocked_reasons.find((x) => x === OPERATOR_BLOCK || x.startsWith(`${OPERATOR_BLOCK}: `));
  if (r === undefined) return null;
  return r.length > OPERATOR_BLOCK.length ? r.slice(OPERATOR_BLOCK.length + 2) : '';
}

export function targets(state: State): string[] {
  if (state.triage.marked.length > 0) return state.triage.marked;
  const item = selectedItem(state);
  return item ? [item.item_id] : [];
}
