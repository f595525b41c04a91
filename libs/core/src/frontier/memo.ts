import { FrontierInputItem, FrontierItem } from './vocabulary';

// What one compute_frontier leaves for the next one over the same project, so that a run after a small write
// costs little more than the write: the output item of every unchanged candidate is handed back as the very same
// object (a serializer copies its bytes after one identity check), each item's created_at is parsed once, and the
// ranking starts from the previous order (an adaptive sort then does close to one comparison per item).
//
// Input items are recognised by identity: the caller gives an unchanged row the same FrontierInputItem object as
// before, and never mutates one it has handed over. Everything the output depends on besides the input item
// (edges, blocker facts, depth, unblocks, cycles) is recomputed and compared, so a memo never changes an answer:
// computeFrontier(input, memo) deep-equals computeFrontier(input), whatever the memo holds.
export class FrontierMemo {
  items: readonly FrontierInputItem[] = [];
  // by position in `items`: the output item built for it (candidates only)
  outputs: (FrontierItem | undefined)[] = [];
  // by position in `items`: its place in the previous rank order, -1 when not a candidate
  rank: Int32Array = new Int32Array(0);
  // by position in `items`: created_at parsed (NaN: not parsed)
  created: Float64Array = new Float64Array(0);
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
