import { createSatisfactionParser } from '../dependencies/gates';
import { BlockerFacts, ParsedSatisfaction, evaluateSatisfaction, isSatisfied } from '../dependencies/satisfaction';
import { FrontierComputation, FrontierEdge, FrontierItem, RankingKey, rankDifference } from './compute-frontier';

export type FrontierBucket = 'runnable' | 'blocked' | 'frozen' | 'not_candidate';

export interface UnsatisfiedFact {
  blocker: number;
  blocker_ref: string | null;
  satisfaction: string;
  form: ParsedSatisfaction;
  // the blocker's status; null when it no longer resolves or is in another organization (sealed)
  state: string | null;
  blocker_bucket: FrontierBucket;
  reason: string;
  need: string;
}

export interface RankNeighbour {
  item_id: number;
  ref: string;
  position: number;
  deciding_key: RankingKey;
  item_value: string | number;
  neighbour_value: string | number;
  summary: string;
}

export interface FrontierExplanation {
  item_id: number;
  ref: string | null;
  bucket: FrontierBucket;
  position: number | null;
  adapter: string | null;
  summary: string[];
  operator_block: string | null;
  unsatisfied: UnsatisfiedFact[];
  critical_path: number[];
  // runnable items reachable through unsatisfied blockers: working these is what unblocks the item
  unblock_roots: number[];
  // frozen, flagged, outside the candidate set, abandoned or missing: they need a person, not a run
  stuck: number[];
  above: RankNeighbour | null;
  below: RankNeighbour | null;
  conduct: 'eligible' | 'suppressed' | null;
}

export interface ExplainOptions {
  acceptForeignRuns?: boolean;
}

interface Placement {
  bucket: FrontierBucket;
  position: number;
  item: FrontierItem;
}

function indexComputation(computation: FrontierComputation): Map<number, Placement> {
  const placements = new Map<number, Placement>();
  const add = (bucket: FrontierBucket, list: FrontierItem[]): void => {
    for (let i = 0; i < list.length; i++) {
      placements.set(list[i].item_id, { bucket, position: i, item: list[i] });
    }
  };
  add('runnable', computation.runnable);
  add('blocked', computation.blocked);
  add('frozen', computation.frozen);
  return placements;
}

function keyValue(item: FrontierItem, key: RankingKey): string | number {
  switch (key) {
    case 'priority':
      return item.priority;
    case 'downstream_depth':
      return item.downstream_depth;
    case 'unblocks_count':
      return item.unblocks_count;
    case 'lifecycle_stage':
      return item.lifecycle_rank;
    case 'created_at':
      return item.created_at;
    case 'item_id':
      return item.item_id;
  }
}

const KEY_PHRASE: Record<RankingKey, string> = {
  priority: 'priority',
  downstream_depth: 'downstream depth',
  unblocks_count: 'unblocks count',
  lifecycle_stage: 'lifecycle stage rank',
  created_at: 'created at',
  item_id: 'internal id (final tie-break)',
};

function neighbour(
  item: FrontierItem,
  other: FrontierItem | undefined,
  side: 'above' | 'below',
  position: number,
): RankNeighbour | null {
  if (!other) {
    return null;
  }
  const { key } = rankDifference(item, other);
  const itemValue = keyValue(item, key);
  const neighbourValue = keyValue(other, key);
  const subject = key === 'lifecycle_stage' ? `${item.status} vs ${other.status}` : `${itemValue} vs ${neighbourValue}`;
  return {
    item_id: other.item_id,
    ref: other.ref,
    position,
    deciding_key: key,
    item_value: itemValue,
    neighbour_value: neighbourValue,
    summary: `ranks ${side} ${other.ref} on ${KEY_PHRASE[key]} (${subject})`,
  };
}

// Critical path: the longest unsatisfied chain to an item runnable now (it bounds the sequential steps
// unblocking needs), else to a stuck blocker. A back edge (a cycle) is cut, so every node finishes once.
export function explainItem(
  itemId: number,
  computation: FrontierComputation,
  edges: readonly FrontierEdge[],
  facts: ReadonlyMap<number, BlockerFacts>,
  options: ExplainOptions = {},
): FrontierExplanation {
  const placements = indexComputation(computation);
  const placement = placements.get(itemId);
  const empty: FrontierExplanation = {
    item_id: itemId,
    ref: placement?.item.ref ?? facts.get(itemId)?.ref ?? null,
    bucket: placement?.bucket ?? 'not_candidate',
    position: placement ? placement.position + 1 : null,
    adapter: placement?.item.adapter ?? null,
    summary: [],
    operator_block: null,
    unsatisfied: [],
    critical_path: [],
    unblock_roots: [],
    stuck: [],
    above: null,
    below: null,
    conduct: null,
  };
  if (!placement) {
    empty.summary.push(
      'not a frontier candidate: terminal, outside the charge-relevant statuses, or not in this project',
    );
    return empty;
  }

  const refOf = (id: number): string | null => placements.get(id)?.item.ref ?? facts.get(id)?.ref ?? null;
  const labelOf = (id: number): string => refOf(id) ?? `#${id}`;
  const parse = createSatisfactionParser();
  const satisfactionOptions = { acceptForeignRuns: options.acceptForeignRuns };

  const edgesOf = new Map<number, number[]>();
  for (let e = 0; e < edges.length; e++) {
    const list = edgesOf.get(edges[e].dependent);
    if (list) {
      list.push(e);
    } else {
      edgesOf.set(edges[e].dependent, [e]);
    }
  }
  const unsatisfiedBlockers = (id: number): number[] => {
    const result: number[] = [];
    for (const e of edgesOf.get(id) ?? []) {
      const edge = edges[e];
      if (!isSatisfied(parse(edge.satisfaction), facts.get(edge.blocker), satisfactionOptions)) {
        result.push(e);
      }
    }
    return result;
  };

  const { item, bucket } = placement;
  const explanation = empty;
  if (item.blocked_flag) {
    const reason = item.blocked_reasons.find((r) => r.startsWith('blocked by operator'));
    explanation.operator_block = reason ?? 'blocked by operator';
  }
  for (const e of unsatisfiedBlockers(itemId)) {
    const edge = edges[e];
    const blockerFacts = facts.get(edge.blocker);
    const blockerRef = refOf(edge.blocker) ?? undefined;
    const result = evaluateSatisfaction(parse(edge.satisfaction), blockerFacts, {
      acceptForeignRuns: options.acceptForeignRuns,
      blockerRef,
    });
    explanation.unsatisfied.push({
      blocker: edge.blocker,
      blocker_ref: blockerRef ?? null,
      satisfaction: edge.satisfaction,
      form: result.form,
      state: blockerFacts?.sealed === true ? null : (blockerFacts?.status ?? null),
      blocker_bucket: placements.get(edge.blocker)?.bucket ?? 'not_candidate',
      reason: result.reason,
      need: result.need,
    });
  }

  if (bucket === 'runnable') {
    const list = computation.runnable;
    const i = placement.position;
    explanation.summary.push(`runnable at position ${i + 1} of ${list.length}`);
    const above = neighbour(item, list[i - 1], 'below', i);
    const below = neighbour(item, list[i + 1], 'above', i + 2);
    if (above) {
      explanation.above = above;
      explanation.summary.push(above.summary);
    }
    if (below) {
      explanation.below = below;
      explanation.summary.push(below.summary);
    }
    if (computation.conduct_eligible.some((x) => x.item_id === itemId)) {
      explanation.conduct = 'eligible';
      explanation.summary.push('conduct work within the WIP cap');
    } else if (computation.wip_suppressed.some((x) => x.item_id === itemId)) {
      explanation.conduct = 'suppressed';
      explanation.summary.push(
        `conduct work held back by the WIP cap (${computation.wip_active} active of ${computation.wip_cap})`,
      );
    }
    return explanation;
  }

  if (bucket === 'frozen') {
    explanation.summary.push('frozen: excluded from the active frontier until unfrozen');
  } else {
    explanation.summary.push(...item.blocked_reasons);
  }

  const WHITE = 0;
  const GREY = 1;
  const BLACK = 2;
  const colour = new Map<number, number>();
  const reachesRoot = new Map<number, boolean>();
  const length = new Map<number, number>();
  const next = new Map<number, number>();
  const children = new Map<number, number[]>();
  const roots: number[] = [];
  const stuck: number[] = [];
  const stack: { id: number; at: number }[] = [{ id: itemId, at: 0 }];
  colour.set(itemId, GREY);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    const id = frame.id;
    let kids = children.get(id);
    if (kids === undefined) {
      const isRoot = id !== itemId && placements.get(id)?.bucket === 'runnable';
      kids = isRoot ? [] : [...new Set(unsatisfiedBlockers(id).map((e) => edges[e].blocker))];
      children.set(id, kids);
    }
    if (frame.at < kids.length) {
      const child = kids[frame.at++];
      if ((colour.get(child) ?? WHITE) === WHITE) {
        colour.set(child, GREY);
        stack.push({ id: child, at: 0 });
      }
      continue;
    }
    stack.pop();
    colour.set(id, BLACK);
    let bestRoot = false;
    let bestLength = -1;
    let bestChild = -1;
    for (const child of kids) {
      // a grey child is on the current walk: following it would close a cycle
      if (colour.get(child) !== BLACK || child === id) {
        continue;
      }
      const childRoot = reachesRoot.get(child) as boolean;
      const childLength = (length.get(child) as number) + 1;
      if ((childRoot && !bestRoot) || (childRoot === bestRoot && childLength > bestLength)) {
        bestRoot = childRoot;
        bestLength = childLength;
        bestChild = child;
      }
    }
    if (id !== itemId && kids.length === 0) {
      const isRoot = placements.get(id)?.bucket === 'runnable';
      (isRoot ? roots : stuck).push(id);
      reachesRoot.set(id, isRoot);
      length.set(id, 0);
    } else if (bestChild === -1) {
      // only blocked through the walk itself (a cycle)
      if (id !== itemId) {
        stuck.push(id);
      }
      reachesRoot.set(id, false);
      length.set(id, 0);
    } else {
      reachesRoot.set(id, bestRoot);
      length.set(id, bestLength);
      next.set(id, bestChild);
    }
  }
  explanation.unblock_roots = roots;
  explanation.stuck = stuck;
  if (next.has(itemId)) {
    const path = [itemId];
    for (let id = next.get(itemId); id !== undefined; id = next.get(id)) {
      path.push(id);
    }
    explanation.critical_path = path;
    const end = path[path.length - 1];
    explanation.summary.push(
      reachesRoot.get(itemId)
        ? `critical path: ${path.map(labelOf).join(' ← ')}; start with ${labelOf(end)}`
        : `critical path: ${path.map(labelOf).join(' ← ')}; ${labelOf(end)} needs attention (not runnable)`,
    );
  }
  return explanation;
}
