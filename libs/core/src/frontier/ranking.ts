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

// Ranking keys precomputed once, then one sort. priority, depth and unblocks pack exactly into one double
// (2 + 22 + 22 bits; counts saturate at 2^22 - 1); lifecycle (negated, closer to done first) and created_at pack
// into a second one whenever both fit exactly, else they are compared one after the other.
export function rankCandidates(
  candidates: number[],
  items: readonly FrontierInputItem[],
  ids: Float64Array,
  depth: Int32Array,
  unblocks: Int32Array,
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
    const created = parseTimestamp(item.createdAt);
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
    candidates.sort((a, b) => primaryKey[a] - primaryKey[b] || lifecycleKey[a] - lifecycleKey[b] || ids[a] - ids[b]);
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
