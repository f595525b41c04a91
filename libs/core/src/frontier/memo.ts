import type { EdgeResolution } from './edge-resolution';
import type { EdgeStructure } from './edge-structure';
import type { ItemIndex } from './item-index';
import { FrontierInputItem, FrontierItem } from './vocabulary';

// What one compute_frontier leaves for the next one over the same project, so that a run after a small write
// costs little more than the write: the output item of every unchanged candidate is handed back as the very same
// object (a serializer copies its bytes after one identity check), each item's created_at is parsed once, and the
// ranking starts from the previous order.
//
// Input items are recognised by identity: the caller gives an unchanged row the same FrontierInputItem object as
// before, and never mutates one it has handed over; likewise the edges array, the edge objects in it, the
// blockerFacts map and the facts objects in it (a change comes as a new array, map or object). When every position
// holds the same id as last run (a write that updated items in place) and the edges are the same objects, the run
// re-evaluates only the edges whose blocker facts object or end items changed, rebuilds only the outputs those
// reach, and places only the changed candidates into the previous order. When items came, went or moved, or edges
// changed, the previous state is first carried to the positions now by id, the edges are laid out again and only
// those whose ends or facts changed are evaluated; anything else (repeated ids, many edges changed, other options)
// recomputes the edges and compares each output with the previous one. Either way a memo never changes an answer:
// computeFrontier(input, memo) deep-equals computeFrontier(input), whatever the memo holds.
export class FrontierMemo {
  private state: FrontierState | null = null;

  // The last run's state, for one run: that run updates it in place and keeps its own when it finishes, so a run
  // that throws leaves an empty memo, never a half-updated one.
  take(): FrontierState | null {
    const state = this.state;
    this.state = null;
    return state;
  }

  keep(state: FrontierState): void {
    this.state = state;
  }
}

// One run's results, by item position unless said otherwise.
export interface FrontierState {
  items: readonly FrontierInputItem[];
  index: ItemIndex;
  structure: EdgeStructure;
  resolution: EdgeResolution;
  isCandidate: Uint8Array;
  wipActive: number;
  // the output item built for each candidate (undefined elsewhere), and its bucket
  outputs: (FrontierItem | undefined)[];
  bucket: Uint8Array;
  // created_at parsed (candidates only)
  created: Float64Array;
  // the stamp of each output item (stamps.ts; 0 where there is none)
  stamp: Float64Array;
  // each output item's claim on the WIP cap if runnable (wip.ts's wipClaim)
  wipKind: Uint8Array;
  // stuck-cycle reason of each item on one; the cycles named (this run's answer, not read by the next run)
  cycleReason: Map<number, string> | null;
  cycles: number[][];
  // candidate positions in rank order
  order: Int32Array;
  // the runnable, blocked and frozen lists of the answer, with their items' stamps and positions (read by the next
  // run, never changed)
  lists: readonly (readonly FrontierItem[])[] | null;
  listStamps: readonly Float64Array[] | null;
  listPositions: readonly Int32Array[] | null;
  // a run after a write: the positions whose list entry may differ from the previous answer's (null: any, or too
  // many to patch the lists)
  edits: readonly ListEdit[] | null;
  // buffers a run after a write uses and the next one may use again (at 1M items, fresh ones a write were external
  // memory that brought each GC nearer): the changed-positions mask, the touched mask, and the lists' positions
  // before last (free once this run's lists replaced them)
  scratch: { changed: Uint8Array | null; touched: Uint8Array | null; positions: Int32Array[] | null };
}

// A position whose list entry may have changed: the bucket its previous entry was in (-1: none) and that entry's stamp.
export interface ListEdit {
  v: number;
  from: number;
  stamp: number;
}

// Consecutive misses after which alignment stops looking nearby and maps every previous item by identity.
const RESYNC_AFTER = 16;
const LOOK_AHEAD = 8;

// For each position of `items`, the position of the same object in `previous`, or -1. Both are usually in the
// same order (ids ascending) with a few items inserted, removed or replaced, so a walk with a short look-ahead
// finds nearly all of them; past a run of misses the rest is found through a map.
export function alignItems<T>(items: readonly T[], previous: readonly T[]): Int32Array {
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
      // the run of misses, looked up again
      for (let u = v - misses + 1; u <= v; u++) {
        aligned[u] = byObject.get(items[u]) ?? -1;
      }
    }
  }
  return aligned;
}
