import type { FrontierDeltaWire, FrontierListDeltaWire } from '@app/contracts';

import type { FrontierTab, State } from './state';

const TABS: readonly FrontierTab[] = ['runnable', 'blocked', 'frozen'];

// Where the item at `index` of the base list sits after the delta; -1 when it left its place (dropped: it may be
// among the items put, looked up by the caller).
export function positionAfter(delta: FrontierListDeltaWire, index: number): number {
  let dropped = 0;
  for (const d of delta.drop) {
    if (d === index) return -1;
    if (d > index) break;
    dropped++;
  }
  let at = index - dropped;
  for (const [p] of delta.put) {
    if (p <= at) at++;
    else break;
  }
  return at;
}

// Null when a filter is on (its row positions are not the list's): the caller relocates by key.
export function cursorsAfterDelta(state: State, delta: FrontierDeltaWire): State['cursors'] | null {
  if (state.filter.trim() !== '') return null;
  let cursors = state.cursors;
  for (const tab of TABS) {
    const cursor = cursors[tab];
    const list = delta[tab];
    const rows = state.frontier?.[tab];
    if (cursor.key === null || !rows || (list.drop.length === 0 && list.put.length === 0)) continue;
    let index = rows[cursor.index]?.item_id === cursor.key ? positionAfter(list, cursor.index) : -1;
    if (index < 0) index = list.put.find(([, item]) => item.item_id === cursor.key)?.[0] ?? -1;
    const length = rows.length - list.drop.length + list.put.length;
    const next =
      index >= 0 ? { index, key: cursor.key } : { index: Math.min(cursor.index, Math.max(length - 1, 0)), key: null };
    if (next.index !== cursor.index || next.key !== cursor.key) cursors = { ...cursors, [tab]: next };
  }
  return cursors;
}
