import { roomBehind, withRoom } from './position-buffers';
import { parseTimestamp } from './timestamps';
import { FrontierInputItem, FrontierItem, RankingKey } from './vocabulary';

const COUNT_LIMIT = 2 ** 22 - 1;
// integers up to here are exact in a double
const PACK_LIMIT = 2 ** 53;

export function priorityRank(priority: string): number {
  return priority === 'high' ? 0 : priority === 'medium' ? 1 : priority === 'low' ? 2 : 3;
}

export function compareRank(a: FrontierItem, b: FrontierItem): number {
  return rankDifference(a, b).difference;
}

export function rankDifference(a: FrontierItem, b: FrontierItem): { key: RankingKey; difference: number } {
  const priority = priorityRank(a.priority) - priorityRank(b.priority);
  if (priority !== 0) {
    return { key: 'priority', difference: priority };
  }
  if (a.downstream_depth !== b.downstream_depth) {
    return { key: 'downstream_depth', difference: b.downstream_depth - a.downstream_depth };
  }
  if (a.unblocks_count !== b.unblocks_count) {
    return { key: 'unblocks_count', difference: b.unblocks_count - a.unblocks_count };
  }
  if (a.lifecycle_rank !== b.lifecycle_rank) {
    return { key: 'lifecycle_stage', difference: b.lifecycle_rank - a.lifecycle_rank };
  }
  const createdA = parseTimestamp(a.created_at);
  const createdB = parseTimestamp(b.created_at);
  if (createdA !== createdB) {
    return { key: 'created_at', difference: createdA < createdB ? -1 : 1 };
  }
  return { key: 'item_id', difference: a.item_id - b.item_id };
}

// A radix sort from scratch, an adaptive comparison sort when candidates come nearly in rank order. Keys are
// packed over the range used (counts saturate at 2^22 - 1), several into one double whenever their ranges fit.
export function rankCandidates(candidates: number[], facts: RankFacts, presorted = false): void {
  const { items, ids, depth, unblocks, created } = facts;
  const n = items.length;
  const priority = new Uint8Array(n);
  const lifecycle = new Float64Array(n);
  let maxDepth = 0;
  let maxUnblocks = 0;
  let integralRanks = true;
  let minRank = Infinity;
  let maxRank = -Infinity;
  let minCreated = Infinity;
  let maxCreated = -Infinity;
  for (let k = 0; k < candidates.length; k++) {
    const v = candidates[k];
    const item = items[v];
    priority[v] = priorityRank(item.priority);
    const rank = item.lifecycleRank;
    if (!Number.isSafeInteger(rank)) {
      integralRanks = false;
    }
    lifecycle[v] = Number.isFinite(rank) ? -rank : Infinity;
    minRank = Math.min(minRank, rank);
    maxRank = Math.max(maxRank, rank);
    minCreated = Math.min(minCreated, created[v]);
    maxCreated = Math.max(maxCreated, created[v]);
    maxDepth = Math.max(maxDepth, Math.min(depth[v], COUNT_LIMIT));
    maxUnblocks = Math.max(maxUnblocks, Math.min(unblocks[v], COUNT_LIMIT));
  }
  const primaryKey = new Float64Array(n);
  for (let k = 0; k < candidates.length; k++) {
    const v = candidates[k];
    primaryKey[v] =
      (priority[v] * (maxDepth + 1) + (maxDepth - Math.min(depth[v], COUNT_LIMIT))) * (maxUnblocks + 1) +
      (maxUnblocks - Math.min(unblocks[v], COUNT_LIMIT));
  }
  const createdSpan = maxCreated - minCreated + 1;
  if (integralRanks && candidates.length > 0 && (maxRank - minRank + 1) * createdSpan < PACK_LIMIT) {
    const secondaryKey = lifecycle;
    for (let k = 0; k < candidates.length; k++) {
      const v = candidates[k];
      secondaryKey[v] = (lifecycle[v] + maxRank) * createdSpan + (created[v] - minCreated);
    }
    if (presorted || !radixSort(candidates, [primaryKey, secondaryKey], ids)) {
      candidates.sort((a, b) => primaryKey[a] - primaryKey[b] || secondaryKey[a] - secondaryKey[b] || ids[a] - ids[b]);
    }
    return;
  }
  candidates.sort(
    (a, b) =>
      primaryKey[a] - primaryKey[b] ||
      (lifecycle[a] === lifecycle[b] ? 0 : lifecycle[a] < lifecycle[b] ? -1 : 1) ||
      (created[a] === created[b] ? 0 : created[a] < created[b] ? -1 : 1) ||
      ids[a] - ids[b],
  );
}

export interface RankFacts {
  items: readonly FrontierInputItem[];
  ids: Float64Array;
  depth: Int32Array;
  unblocks: Int32Array;
  created: Float64Array;
}

export function compareCandidates(a: number, b: number, facts: RankFacts): number {
  const { items, depth, unblocks, created } = facts;
  const itemA = items[a];
  const itemB = items[b];
  const priority = priorityRank(itemA.priority) - priorityRank(itemB.priority);
  if (priority !== 0) {
    return priority;
  }
  const depthA = Math.min(depth[a], COUNT_LIMIT);
  const depthB = Math.min(depth[b], COUNT_LIMIT);
  if (depthA !== depthB) {
    return depthB - depthA;
  }
  const unblocksA = Math.min(unblocks[a], COUNT_LIMIT);
  const unblocksB = Math.min(unblocks[b], COUNT_LIMIT);
  if (unblocksA !== unblocksB) {
    return unblocksB - unblocksA;
  }
  const rankA = itemA.lifecycleRank;
  const rankB = itemB.lifecycleRank;
  const lifecycleA = Number.isFinite(rankA) ? -rankA : Infinity;
  const lifecycleB = Number.isFinite(rankB) ? -rankB : Infinity;
  if (lifecycleA !== lifecycleB) {
    return lifecycleA < lifecycleB ? -1 : 1;
  }
  if (created[a] !== created[b]) {
    return created[a] < created[b] ? -1 : 1;
  }
  return facts.ids[a] - facts.ids[b];
}

// `moved` placed into `kept` by binary search instead of sorting every candidate, in place when the buffer has room
// (fresh large arrays per write bring the next GC nearer).
export function placeInOrder(kept: Int32Array, moved: number[], facts: RankFacts): Int32Array {
  moved.sort((a, b) => compareCandidates(a, b, facts));
  const at = new Int32Array(moved.length);
  let from = 0;
  for (let j = 0; j < moved.length; j++) {
    const v = moved[j];
    let low = from;
    let high = kept.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareCandidates(kept[middle], v, facts) < 0) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    at[j] = low;
    from = low;
  }
  const size = kept.length + moved.length;
  let buffer = roomBehind(kept);
  if (buffer.length < size) {
    buffer = roomBehind(withRoom(size));
    buffer.set(kept);
  }
  // from the last: each moved candidate's run of later kept entries moves up past it, then it goes in
  let end = size;
  let keptEnd = kept.length;
  for (let j = moved.length - 1; j >= 0; j--) {
    const run = keptEnd - at[j];
    buffer.copyWithin(end - run, at[j], keptEnd);
    end -= run;
    buffer[--end] = moved[j];
    keptEnd = at[j];
  }
  return buffer.subarray(0, size);
}

const MAX_DIGIT_BITS = 16;
const TWO_32 = 2 ** 32;

// LSD radix sort (each key less its minimum, digits of at most 16 bits): linear where a comparison sort is
// n log n. Returns false when an id does not fit, and the caller sorts by comparison.
export function radixSort(candidates: number[], keys: readonly Float64Array[], ids: Float64Array): boolean {
  const c = candidates.length;
  let idsAscend = true;
  for (let k = 1; k < c; k++) {
    if (ids[candidates[k - 1]] >= ids[candidates[k]]) {
      idsAscend = false;
      break;
    }
  }
  const passes: Float64Array[] = [];
  if (!idsAscend) {
    for (let k = 0; k < c; k++) {
      const id = ids[candidates[k]];
      if (!(Number.isSafeInteger(id) && id >= 0)) return false;
    }
    passes.push(ids);
  }
  for (let key = keys.length - 1; key >= 0; key--) passes.push(keys[key]);
  let order = Int32Array.from(candidates);
  let next = new Int32Array(c);
  const digit = new Int32Array(c);
  const count = new Int32Array(1 << MAX_DIGIT_BITS);
  for (const values of passes) {
    let min = Infinity;
    let max = -Infinity;
    for (let k = 0; k < c; k++) {
      const x = values[order[k]];
      if (x < min) min = x;
      if (x > max) max = x;
    }
    let bits = 0;
    while (bits < 53 && 2 ** bits <= max - min) bits++;
    const rounds = Math.ceil(bits / MAX_DIGIT_BITS);
    const width = Math.ceil(bits / Math.max(rounds, 1));
    const mask = (1 << width) - 1;
    for (let round = 0; round < rounds; round++) {
      const shift = round * width;
      count.fill(0, 0, mask + 1);
      for (let k = 0; k < c; k++) {
        const x = values[order[k]] - min;
        const low = x >>> 0;
        const high = (x - low) / TWO_32;
        // the digit's bits, from the low word, the high word, or both when it straddles them
        const d =
          (shift >= 32
            ? high >>> (shift - 32)
            : shift + width <= 32
              ? low >>> shift
              : (low >>> shift) | (high << (32 - shift))) & mask;
        digit[k] = d;
        count[d]++;
      }
      if (count[digit[0]] === c) continue;
      let at = 0;
      for (let d = 0; d <= mask; d++) {
        const n = count[d];
        count[d] = at;
        at += n;
      }
      for (let k = 0; k < c; k++) next[count[digit[k]]++] = order[k];
      [order, next] = [next, order];
    }
  }
  for (let k = 0; k < c; k++) candidates[k] = order[k];
  return true;
}
