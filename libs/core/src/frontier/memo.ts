import type { EdgeResolution } from './edge-resolution';
import type { EdgeStructure } from './edge-structure';
import { alignedByEdits, ItemIndex } from './item-index';
import { FrontierInputItem, FrontierItem } from './vocabulary';

// Lets a run after a small write cost little more than the write: unchanged outputs come back as the same object
// (a serializer copies their bytes after one identity check). Inputs are recognised by identity: the caller never
// mutates an object it handed over (items, edges, blockerFacts and facts). Invariant: computeFrontier(input, memo)
// deep-equals computeFrontier(input), whatever the memo holds.
export class FrontierMemo {
  private state: FrontierState | null = null;

  // A run updates the state in place and keeps its own only when it finishes, so a run that throws leaves an empty
  // memo, never a half-updated one.
  take(): FrontierState | null {
    const state = this.state;
    this.state = null;
    return state;
  }

  keep(state: FrontierState): void {
    this.state = state;
  }
}

// By item position unless said otherwise.
export interface FrontierState {
  items: readonly FrontierInputItem[];
  index: ItemIndex;
  structure: EdgeStructure;
  resolution: EdgeResolution;
  isCandidate: Uint8Array;
  wipActive: number;
  outputs: (FrontierItem | undefined)[];
  bucket: Uint8Array;
  created: Float64Array;
  stamp: Float64Array;
  wipKind: Uint8Array;
  cycleReason: Map<number, string> | null;
  cycles: number[][];
  order: Int32Array;
  // read by the next run, never changed
  lists: readonly (readonly FrontierItem[])[] | null;
  listStamps: readonly Float64Array[] | null;
  listPositions: readonly Int32Array[] | null;
  // positions whose list entry may differ from the previous answer's (null: any, or too many to patch the lists)
  edits: readonly ListEdit[] | null;
  // reused by the next run: fresh buffers per write are external memory that brings each GC nearer
  scratch: { changed: Uint8Array | null; touched: Uint8Array | null; positions: (Int32Array | null)[] | null };
}

export interface ListEdit {
  v: number;
  from: number;
  stamp: number;
}

const RESYNC_AFTER = 16;
const LOOK_AHEAD = 8;

// Both runs are usually in the same id order with a few changes: a short look-ahead finds most, a map the rest.
// An array recorded as the previous one edited (`recordEdit`: entries removed, others added at the end) is aligned
// from the records, without comparing its entries.
export function alignItems<T>(items: readonly T[], previous: readonly T[]): Int32Array {
  const recorded = previous.length === 0 ? null : alignedByEdits(items, previous);
  if (recorded !== null) {
    return recorded;
  }
  const n = items.length;
  const aligned = new Int32Array(n).fill(-1);
  if (previous.length === 0) {
    return aligned;
  }
  let j = 0;
  let misses = 0;
  let byObject: Map<T, number> | null = null;
  for (let v = 0; v < n; v++) {
    const item = items[v];
    if (byObject !== null) {
      aligned[v] = byObject.get(item) ?? -1;
      continue;
    }
    if (j < previous.length && previous[j] === item) {
      aligned[v] = j++;
      misses = 0;
      continue;
    }
    let found = -1;
    for (let d = 1; d <= LOOK_AHEAD && j + d < previous.length; d++) {
      if (previous[j + d] === item) {
        found = j + d;
        break;
      }
    }
    if (found >= 0) {
      aligned[v] = found;
      j = found + 1;
      misses = 0;
    } else if (++misses >= RESYNC_AFTER) {
      byObject = new Map();
      for (let p = 0; p < previous.length; p++) {
        byObject.set(previous[p], p);
      }
      for (let u = v - misses + 1; u <= v; u++) {
        aligned[u] = byObject.get(items[u]) ?? -1;
      }
    }
  }
  return aligned;
}
