import { FrontierInputItem } from './vocabulary';

// Item ids to input positions, for the edges' endpoints.
export interface ItemIndex {
  ids: Float64Array;
  // 0 = a later duplicate of an earlier id; the first occurrence wins
  keep: Uint8Array;
  table: Int32Array | null;
  map: Map<number, number> | null;
}

// Dense ids (the usual serial keys) index a typed array; sparse or odd ids fall back to a Map.
export function indexItems(items: readonly FrontierInputItem[]): ItemIndex {
  const n = items.length;
  const ids = new Float64Array(n);
  const keep = new Uint8Array(n).fill(1);
  let max = -1;
  let dense = true;
  for (let v = 0; v < n; v++) {
    const id = items[v].id;
    ids[v] = id;
    if ((id | 0) !== id || id < 0) {
      dense = false;
    } else if (id > max) {
      max = id;
    }
  }
  if (dense && max < n * 4 + 65536) {
    const table = new Int32Array(max + 1).fill(-1);
    for (let v = 0; v < n; v++) {
      const id = ids[v];
      if (table[id] === -1) {
        table[id] = v;
      } else {
        keep[v] = 0;
      }
    }
    return { ids, keep, table, map: null };
  }
  const map = new Map<number, number>();
  for (let v = 0; v < n; v++) {
    if (map.has(ids[v])) {
      keep[v] = 0;
    } else {
      map.set(ids[v], v);
    }
  }
  return { ids, keep, table: null, map };
}

export function lookupIndex(index: ItemIndex, id: number): number {
  const table = index.table;
  if (table !== null) {
    return (id | 0) === id && id >= 0 && id < table.length ? table[id] : -1;
  }
  return (index.map as Map<number, number>).get(id) ?? -1;
}

// Which positions hold another object than in `previous`, when every position still holds the same id (an update in
// place: the index and everything keyed by position carry over); null when ids were inserted, removed or moved.
export function changedInPlace(
  items: readonly FrontierInputItem[],
  previous: readonly FrontierInputItem[],
  index: ItemIndex,
): Uint8Array | null {
  const n = items.length;
  if (previous.length !== n) {
    return null;
  }
  const changed = new Uint8Array(n);
  const ids = index.ids;
  for (let v = 0; v < n; v++) {
    const item = items[v];
    if (item !== previous[v]) {
      if (item.id !== ids[v]) {
        return null;
      }
      changed[v] = 1;
    }
  }
  return changed;
}
