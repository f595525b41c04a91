import { FrontierInputItem } from './vocabulary';

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

// Lets a memo run find the changed positions without comparing every one. The earlier array is held weakly so a
// patch never keeps an older version alive.
interface ItemsPatch {
  base: WeakRef<readonly FrontierInputItem[]>;
  positions: readonly number[];
}

const patchOf = new WeakMap<readonly FrontierInputItem[], ItemsPatch>();

// Patches and edits followed back from a run's items to its memo's; past this many a run compares every position.
const PATCH_CHAIN = 32;

// Same length, same id at every position: the caller keeps that promise and a run trusts it.
export function recordItemsPatch(
  items: readonly FrontierInputItem[],
  base: readonly FrontierInputItem[],
  positions: readonly number[],
): void {
  patchOf.set(items, { base: new WeakRef(base), positions });
}

// An array that is an earlier one less the entries at `removed` (ascending positions), with entries added at its end
// (none, or any number): the earlier one's other objects, in their order. Held weakly, as a patch's base is.
interface ArrayEdit {
  base: WeakRef<readonly unknown[]>;
  removed: readonly number[];
}

const editOf = new WeakMap<readonly unknown[], ArrayEdit>();

// `edited` is `base` less the entries at `removed` (ascending), then entries added at its end (`concat`, or the graph
// cache's removal of a few edges): the caller keeps that promise and a run trusts it, so aligning the two costs no
// comparison of their entries.
export function recordEdit<T>(edited: readonly T[], base: readonly T[], removed: readonly number[] = []): void {
  editOf.set(edited, { base: new WeakRef(base), removed });
}

// The edit recorded for `array` (its base, still alive, and the positions removed from it); undefined if none.
export function recordedEdit<T>(array: readonly T[]): { base: readonly T[]; removed: readonly number[] } | undefined {
  const edit = editOf.get(array);
  const base = edit?.base.deref() as readonly T[] | undefined;
  return edit === undefined || base === undefined ? undefined : { base, removed: edit.removed };
}

// Each entry of `array`'s position in `previous` (-1: added since), through the edits recorded (no patch between);
// null when they do not lead back to it.
export function alignedByEdits<T>(array: readonly T[], previous: readonly T[]): Int32Array | null {
  const chain: { length: number; removed: readonly number[] }[] = [];
  let current: readonly unknown[] = array;
  while (current !== previous) {
    const edit = editOf.get(current);
    const base = edit?.base.deref();
    if (edit === undefined || base === undefined || chain.length === PATCH_CHAIN) return null;
    chain.push({ length: current.length, removed: edit.removed });
    current = base;
  }
  let oldOf = new Int32Array(previous.length);
  for (let v = 0; v < oldOf.length; v++) oldOf[v] = v;
  for (let hop = chain.length - 1; hop >= 0; hop--) {
    const { length, removed } = chain[hop];
    const next = new Int32Array(length).fill(-1);
    let from = 0;
    let to = 0;
    for (const at of removed) {
      next.set(oldOf.subarray(from, at), to);
      to += at - from;
      from = at + 1;
    }
    next.set(oldOf.subarray(from, Math.min(oldOf.length, from + length - to)), to);
    oldOf = next;
  }
  return oldOf;
}

// The positions patched from `previous` to `items`, through the patches and the edits that only added entries at the
// end (those patch none; a patch after one may name a position past `previous`'s end), or null when the records do
// not lead back to it.
export function patchedSince(
  items: readonly FrontierInputItem[],
  previous: readonly FrontierInputItem[],
): number[] | null {
  const positions: number[] = [];
  if (items === previous) {
    return positions;
  }
  let current = items;
  for (let hop = 0; hop < PATCH_CHAIN; hop++) {
    const patch = patchOf.get(current);
    // an edit that removed entries moved the positions after them: a patch's positions say nothing across it
    const edit = patch === undefined ? editOf.get(current) : undefined;
    const base = patch !== undefined ? patch.base.deref() : edit?.removed.length === 0 ? edit.base.deref() : undefined;
    if (base === undefined) {
      return null;
    }
    if (patch !== undefined) {
      for (const v of patch.positions) {
        positions.push(v);
      }
    }
    if (base === previous) {
      return positions;
    }
    current = base as readonly FrontierInputItem[];
  }
  return null;
}

export interface ChangedPositions {
  list: number[];
  mask: Uint8Array;
}

// null when ids were inserted, removed or moved. `scratch`: an earlier run's mask to reuse.
export function changedInPlace(
  items: readonly FrontierInputItem[],
  previous: readonly FrontierInputItem[],
  index: ItemIndex,
  scratch: Uint8Array | null = null,
): ChangedPositions | null {
  const n = items.length;
  if (previous.length !== n) {
    return null;
  }
  const mask = scratch !== null && scratch.length === n ? scratch.fill(0) : new Uint8Array(n);
  const ids = index.ids;
  const patched = patchedSince(items, previous);
  if (patched !== null) {
    for (const v of patched) {
      if (v >= 0 && v < n && items[v] !== previous[v]) {
        if (items[v].id !== ids[v]) {
          return null;
        }
        mask[v] = 1;
      }
    }
    const list: number[] = [];
    for (const v of patched) {
      if (mask[v] === 1) {
        list.push(v);
        mask[v] = 2;
      }
    }
    list.sort((a, b) => a - b);
    for (const v of list) {
      mask[v] = 1;
    }
    return { list, mask };
  }
  const list: number[] = [];
  for (let v = 0; v < n; v++) {
    const item = items[v];
    if (item !== previous[v]) {
      if (item.id !== ids[v]) {
        return null;
      }
      mask[v] = 1;
      list.push(v);
    }
  }
  return { list, mask };
}
