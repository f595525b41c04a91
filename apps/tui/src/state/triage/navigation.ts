import { sortHelp, SortKey } from '@app/contracts';
import type { State } from '../state';
import { rowByRef, status, triage, TriageHelpers } from './common';

export function jumpTo(state: State, ref: string, helpers: TriageHelpers): State | null {
  const found = rowByRef(state, ref);
  if (!found) return null;
  const back = [...state.triage.back, { tab: state.tab, key: state.cursors[state.tab].key }].slice(-50);
  const index = (state.frontier?.[found.tab] ?? []).findIndex((r) => r.item_id === found.row.item_id);
  return helpers.settle({
    ...triage(state, { back }),
    tab: found.tab,
    filter: '',
    filtering: false,
    cursors: { ...state.cursors, [found.tab]: { key: found.row.item_id, index } },
  });
}

export function sortBy(state: State, key: SortKey, desc: boolean, helpers: TriageHelpers): State {
  const sorted = helpers.settle({ ...state, sort: key, sortDesc: desc });
  const how = key === 'rank' ? 'rank (the frontier order)' : `${key}: ${sortHelp(key)}`;
  return status(sorted, `sorted by ${how}${desc ? ', reversed (desc)' : ''}`, 'info');
}

export function jumpBack(state: State, helpers: TriageHelpers): State {
  const back = state.triage.back;
  const last = back[back.length - 1];
  if (!last) return status(state, 'nothing to go back to', 'info');
  const next = triage(state, { back: back.slice(0, -1) });
  return helpers.settle({
    ...next,
    tab: last.tab,
    cursors: { ...next.cursors, [last.tab]: { ...next.cursors[last.tab], key: last.key } },
  });
}

export function selectArrived(state: State, helpers: TriageHelpers): State {
  const ref = state.triage.arriving;
  const found = ref ? rowByRef(state, ref) : null;
  if (!ref || !found) return state;
  // an older frontier answer still shows it where it was: wait for the one that shows the change
  if (state.triage.arrivingTab && found.tab !== state.triage.arrivingTab) return state;
  const jumped = jumpTo(triage(state, { arriving: null, arrivingTab: null }), ref, helpers);
  return jumped ? { ...jumped, triage: { ...jumped.triage, back: state.triage.back } } : state;
}
