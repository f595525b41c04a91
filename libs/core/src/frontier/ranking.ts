import { parseTimestamp } from './timestamps';
import { FrontierInputItem, FrontierItem, RankingKey } from './vocabulary';

const COUNT_LIMIT = 2 ** 22 - 1;
// lifecycle ranks below 2^10 and created_at spans below 2^42 ms (139 years) pack exactly into one double
const LIFECYCLE_LIMIT = 2 ** 10;
const CREATED_SPAN_LIMIT = 2 ** 42;
const DEPTH_WEIGHT = 2 ** 22;
const PRIORITY_WEIGHT = 2 ** 44;

// Unknown priority values rank after low.
export function priorityRank(priority: string): number {
  return priority === 'high' ? 0 : priority === 'medium' ? 1 : priority === 'low' ? 2 : 3;
}

export function compareRank(a: FrontierItem, b: FrontierItem): number {
  return rankDifference(a, b).difference;
}

// The first ranking key on which a and b differ; negative difference = a ranks first.
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

// Ranking keys precomputed once, then one sort: a radix sort from scratch, the adaptive comparison sort when the
// candidates come close to rank order (the memo's previous order after a small write: about one comparison each).
// priority, depth and unblocks pack exactly into one double (2 + 22 + 22 bits; counts saturate at 2^22 - 1);
// lifecycle (negated, closer to done first) and created_at pack into a second one whenever both fit exactly, else
// they are compared one after the other.
export function rankCandidates(
  candidates: number[],
  items: readonly FrontierInputItem[],
  ids: Float64Array,
  depth: Int32Array,
  unblocks: Int32Array,
  // created_at already parsed, by position (NaN: parse it here)
  parsed?: Float64Array,
  // candidates come close to rank order (the previous run's): the adaptive comparison sort is cheaper then
  presorted = false,
): void {
  const n = items.length;
  const primaryKey = new Float64Array(n);
  const lifecycleKey = new Float64Array(n);
  const createdKey = new Float64Array(n);
  let packable = true;
  let minCreated = Infinity;
  let maxCreated = -Infinity;
  for (let k = 0; k < candidates.length; k++) {
    const v = candidates[k];
    const item = items[v];
    primaryKey[v] =
      priorityRank(item.priority) * PRIORITY_WEIGHT +
      (COUNT_LIMIT - Math.min(depth[v], COUNT_LIMIT)) * DEPTH_WEIGHT +
      (COUNT_LIMIT - Math.min(unblocks[v], COUNT_LIMIT));
    const rank = item.lifecycleRank;
    if (!((rank | 0) === rank && rank >= 0 && rank < LIFECYCLE_LIMIT)) {
      packable = false;
    }
    lifecycleKey[v] = Number.isFinite(rank) ? -rank : Infinity;
    const known = parsed === undefined ? NaN : parsed[v];
    const created = known === known ? known : parseTimestamp(item.createdAt);
    createdKey[v] = created;
    if (created < minCreated) {
      minCreated = created;
    }
    if (created > maxCreated) {
      maxCreated = created;
    }
  }
  if (packable && candidates.length > 0 && maxCreated - minCreated < CREATED_SPAN_LIMIT) {
    for (let k = 0; k < candidates.length; k++) {
      const v = candidates[k];
      lifecycleKey[v] = (LIFECYCLE_LIMIT - 1 + lifecycleKey[v]) * CREATED_SPAN_LIMIT + (createdKey[v] - minCreated);
    }
    if (presorted || !radixSort(candidates, [primaryKey, lifecycleKey], ids)) {
      candidates.sort((a, b) => primaryKey[a] - primaryKey[b] || lifecycleKey[a] - lifecycleKey[b] || ids[a] - ids[b]);
    }
    return;
  }
  candidates.sort(
    (a, b) =>
      primaryKey[a] - primaryKey[b] ||
      (lifecycleKey[a] === lifecycleKey[b] ? 0 : lifecycleKey[a] < lifecycleKey[b] ? -1 : 1) ||
      (createdKey[a] === createdKey[b] ? 0 : createdKey[a] < createdKey[b] ? -1 : 1) ||
      ids[a] - ids[b],
  );
}

const DIGIT_BITS = 16;
const DIGITS = 1 << DIGIT_BITS;
const TWO_32 = 2 ** 32;

// Sorts candidate positions by keys[0], then keys[1], ..., then id, all non-negative integers below 2^53 (ids: any
// safe integer is fine when they ascend in `candidates`' order; otherwise non-negative ones below 2^53): an LSD
// radix sort, one stable counting pass per 16-bit digit from the least significant key up, passes whose digit is
// the same for every candidate skipped. Linear where a comparison sort makes ~n log n calls of a comparator.
// Returns false (nothing done) when an id does not fit; the caller then sorts by comparison.
export function radixSort(candidates: number[], keys: readonly Float64Array[], ids: Float64Array): boolean {
  const c = candidates.length;
  let idsAscend = true;
  for (let k = 1; k < c; k++) {
    if (ids[candidates[k - 1]] >= ids[candidates[k]]) {
      idsAscend = false;
      break;
    }
  }
  // least significant key first: the ids (unless the candidates already come in id order), then the keys
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
  const count = new Int32Array(DIGITS);
  for (const values of passes) {
    for (let high = 0; high < 2; high++) {
      for (let shift = 0; shift < 32; shift += DIGIT_BITS) {
        count.fill(0);
        for (let k = 0; k < c; k++) {
          const x = values[order[k]];
          const word = high === 0 ? x % TWO_32 : Math.floor(x / TWO_32);
          const d = (word >>> shift) & (DIGITS - 1);
          digit[k] = d;
          count[d]++;
        }
        if (count[digit[0]] === c) continue;
        let at = 0;
        for (let d = 0; d < DIGITS; d++) {
          const n = count[d];
          count[d] = at;
          at += n;
        }
        for (let k = 0; k < c; k++) next[count[digit[k]]++] = order[k];
        [order, next] = [next, order];
      }
    }
  }
  for (let k = 0; k < c; k++) candidates[k] = order[k];
  return true;
}
