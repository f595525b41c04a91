import { CompactGraph, buildCompactGraph, cycleThrough, stronglyConnectedComponents } from '../dependencies/cycles';
import { formatCycle } from '../dependencies/gates';
import {
  BlockerFacts,
  ParsedSatisfaction,
  SatisfactionOptions,
  isSatisfied,
  isTerminalStatus,
  parseSatisfaction,
  satisfactionReason,
  satisfactionReasonTail,
} from '../dependencies/satisfaction';

export const ADAPTER_CATEGORIES = [
  'refine',
  'shepherd',
  'conduct',
  'polish',
  'usher',
  'wait',
  'skip',
  'advance',
  'dash',
  'blitz',
] as const;
export type AdapterCategory = (typeof ADAPTER_CATEGORIES)[number];

export const PRIORITIES = ['high', 'medium', 'low'] as const;
export type Priority = (typeof PRIORITIES)[number];

import { applyWipCap, DEFAULT_WIP_CAP } from './wip';

export { applyWipCap, CONDUCT_ADAPTERS, DEFAULT_WIP_CAP, isWipStatus, takesWipSlot, WIP_STATUSES } from './wip';

export const CHARGE_RELEVANT_STATUSES = [
  'idea',
  'refining-idea',
  'refined-idea',
  'plan-drafted',
  'refining-plan',
  'planning',
  'planned',
  'implementing',
  'reviewing-implementation',
  'reviewed-implementation',
  'polishing-implementation',
  'implemented',
  'release',
] as const;

export interface StageAdapters {
  issue: AdapterCategory;
  epic: AdapterCategory;
}

// Default status → adapter table for workflow definitions. Issues skip maturation: a refined or planning
// issue is ready to conduct, an epic at those stages needs shepherding. An issue already implementing or
// under implementation review is implement re-entry (advance); an epic there keeps dispatching its tasks
// (conduct), which is the work the WIP cap suppresses.
export const DEFAULT_STAGE_ADAPTERS: Readonly<Record<string, StageAdapters>> = {
  idea: { issue: 'refine', epic: 'refine' },
  'refining-idea': { issue: 'refine', epic: 'refine' },
  'refined-idea': { issue: 'conduct', epic: 'shepherd' },
  'plan-drafted': { issue: 'refine', epic: 'refine' },
  'refining-plan': { issue: 'refine', epic: 'refine' },
  planning: { issue: 'conduct', epic: 'shepherd' },
  planned: { issue: 'conduct', epic: 'conduct' },
  implementing: { issue: 'advance', epic: 'conduct' },
  'reviewing-implementation': { issue: 'advance', epic: 'conduct' },
  'reviewed-implementation': { issue: 'polish', epic: 'polish' },
  'polishing-implementation': { issue: 'polish', epic: 'polish' },
  implemented: { issue: 'usher', epic: 'usher' },
  release: { issue: 'usher', epic: 'usher' },
  done: { issue: 'skip', epic: 'skip' },
  cancelled: { issue: 'skip', epic: 'skip' },
  stopped: { issue: 'skip', epic: 'skip' },
  failed: { issue: 'skip', epic: 'skip' },
};

// Statuses outside the table are exceptional for the frontier: wait.
export function defaultStageAdapter(status: string, isEpic: boolean): AdapterCategory {
  const entry = Object.prototype.hasOwnProperty.call(DEFAULT_STAGE_ADAPTERS, status)
    ? DEFAULT_STAGE_ADAPTERS[status]
    : undefined;
  return entry ? (isEpic ? entry.epic : entry.issue) : 'wait';
}

export interface FrontierInputItem {
  id: number;
  ref: string;
  title: string;
  status: string;
  priority: string;
  project: string;
  workflowId: string;
  workflowVersionId: number;
  frozen: boolean;
  blocked: boolean;
  blockedReason: string | null;
  createdAt: string;
  // status-based adapter from the item's pinned workflow definition, computed by the caller
  stageAdapter: AdapterCategory;
  // position of the status in its workflow's stage order; larger = closer to done
  lifecycleRank: number;
  isEpic: boolean;
}

export interface FrontierEdge {
  blocker: number;
  dependent: number;
  satisfaction: string;
}

export interface FrontierInput {
  items: readonly FrontierInputItem[];
  // activation-gate edges only
  edges: readonly FrontierEdge[];
  blockerFacts: ReadonlyMap<number, BlockerFacts>;
  wipCap: number;
  acceptForeignRuns?: boolean;
}

export interface FrontierItem {
  item_id: number;
  ref: string;
  title: string;
  status: string;
  priority: string;
  project: string;
  workflow_id: string;
  workflow_version_id: number;
  adapter: AdapterCategory;
  blocked_by: readonly number[];
  blocked_reasons: readonly string[];
  unblocks_count: number;
  downstream_depth: number;
  created_at: string;
  // in-process only; not part of the wire shape
  stage_adapter: AdapterCategory;
  lifecycle_rank: number;
  is_epic: boolean;
  frozen: boolean;
  blocked_flag: boolean;
}

export interface FrontierComputation {
  runnable: FrontierItem[];
  blocked: FrontierItem[];
  frozen: FrontierItem[];
  wip_cap: number;
  wip_active: number;
  conduct_eligible: FrontierItem[];
  // remaining start capacity: max(0, wip_cap - wip_active)
  wip_remaining: number;
  // runnable conduct work held back by the cap, in rank order
  wip_suppressed: FrontierItem[];
  // cycles of unsatisfied activation edges among the input items (internal ids, first id repeated last)
  cycles: number[][];
}

export interface FrontierItemWire {
  item_id: string;
  title: string;
  status: string;
  priority: string;
  project: string;
  workflow_id: string;
  workflow_version_id: number;
  adapter: AdapterCategory;
  blocked_by: string[];
  blocked_reasons: string[];
  unblocks_count: number;
  downstream_depth: number;
  created_at: string;
}

export interface FrontierResultWire {
  runnable: FrontierItemWire[];
  blocked: FrontierItemWire[];
  frozen: FrontierItemWire[];
  wip_cap: number;
  wip_active: number;
  conduct_eligible: FrontierItemWire[];
}

export const RANKING_KEYS = [
  'priority',
  'downstream_depth',
  'unblocks_count',
  'lifecycle_stage',
  'created_at',
  'item_id',
] as const;
export type RankingKey = (typeof RANKING_KEYS)[number];

const CHARGE_RELEVANT = new Set<string>(CHARGE_RELEVANT_STATUSES);

// Shared by every unblocked item instead of two fresh empty arrays each; frozen, so sharing is safe.
const NO_BLOCKERS: readonly number[] = Object.freeze([]);
const NO_REASONS: readonly string[] = Object.freeze([]);

const RUNNABLE = 0;
const BLOCKED = 1;
const FROZEN = 2;

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

const ZONE_SUFFIX = /(?:[zZ]|[+-]\d{2}(?::?\d{2})?)$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const MS_PER_DAY = 86_400_000;

function digitsAt(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (!(digit >= 0 && digit <= 9)) {
      return -1;
    }
    value = value * 10 + digit;
  }
  return value;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

// `YYYY-MM-DD[T ]HH:MM:SS[.fraction][Z|±HH|±HHMM|±HH:MM]` (ISO 8601 and PostgreSQL text) without allocating.
// NaN when the text has another shape; Infinity when it has this shape but names no real instant.
function parseIsoTimestamp(text: string): number {
  const length = text.length;
  if (
    length < 19 ||
    text.charCodeAt(4) !== 45 ||
    text.charCodeAt(7) !== 45 ||
    (text.charCodeAt(10) !== 84 && text.charCodeAt(10) !== 32) ||
    text.charCodeAt(13) !== 58 ||
    text.charCodeAt(16) !== 58
  ) {
    return NaN;
  }
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  const second = digitsAt(text, 17, 2);
  if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) {
    return NaN;
  }
  const leap = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > DAYS_IN_MONTH[month - 1] + (leap ? 1 : 0) ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  ) {
    return Infinity;
  }
  let at = 19;
  let millis = 0;
  if (at < length && text.charCodeAt(at) === 46) {
    at++;
    let scale = 100;
    const start = at;
    while (at < length) {
      const digit = text.charCodeAt(at) - 48;
      if (digit < 0 || digit > 9) {
        break;
      }
      millis += digit * scale;
      scale /= 10;
      at++;
    }
    if (at === start) {
      return NaN;
    }
    millis = Math.floor(millis);
  }
  let offsetMinutes = 0;
  if (at < length) {
    const sign = text.charCodeAt(at);
    if ((sign === 90 || sign === 122) && at + 1 === length) {
      at++;
    } else if (sign === 43 || sign === 45) {
      const offsetHours = digitsAt(text, at + 1, 2);
      let rest = at + 3;
      if (rest < length && text.charCodeAt(rest) === 58) {
        rest++;
      }
      const offsetMins = rest === length ? 0 : digitsAt(text, rest, 2);
      if (offsetHours < 0 || offsetMins < 0 || (rest !== length && rest + 2 !== length)) {
        return NaN;
      }
      offsetMinutes = (sign === 45 ? -1 : 1) * (offsetHours * 60 + offsetMins);
      at = length;
    }
  }
  if (at !== length) {
    return NaN;
  }
  const local = daysFromCivil(year, month, day) * MS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1000 + millis;
  return local - offsetMinutes * 60_000;
}

// Milliseconds since the epoch; a timestamp without a zone is read as UTC (never as the host's local time).
// Unparseable values sort after every valid timestamp.
export function parseTimestamp(value: string): number {
  if (typeof value !== 'string' || value.length === 0) {
    return Infinity;
  }
  const fast = parseIsoTimestamp(value);
  if (!Number.isNaN(fast)) {
    return fast;
  }
  const text = value.length > 10 && value.charCodeAt(10) === 32 ? value.slice(0, 10) + 'T' + value.slice(11) : value;
  const ms = Date.parse(ZONE_SUFFIX.test(text) || text.length <= 10 ? text : text + 'Z');
  return Number.isNaN(ms) ? Infinity : ms;
}

// Already zoneless UTC with milliseconds (what the repository selects): the hot path returns it untouched.
const ZONELESS_ISO = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}$/;

// ISO 8601 in UTC with milliseconds and no zone suffix, e.g. 2026-01-01T00:00:00.000.
export function toZonelessIso(value: string): string {
  if (value.length === 23 && ZONELESS_ISO.test(value)) {
    return value;
  }
  const ms = parseTimestamp(value);
  if (ms === Infinity) {
    return value;
  }
  const iso = new Date(ms).toISOString();
  return iso.slice(0, iso.length - 1);
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

interface ItemIndex {
  ids: Float64Array;
  // 0 = a later duplicate of an earlier id; the first occurrence wins
  keep: Uint8Array;
  table: Int32Array | null;
  map: Map<number, number> | null;
}

// Dense ids (the usual serial keys) index a typed array; sparse or odd ids fall back to a Map.
function indexItems(items: readonly FrontierInputItem[]): ItemIndex {
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

function lookupIndex(index: ItemIndex, id: number): number {
  const table = index.table;
  if (table !== null) {
    return (id | 0) === id && id >= 0 && id < table.length ? table[id] : -1;
  }
  return (index.map as Map<number, number>).get(id) ?? -1;
}

// Per-call state of the edge resolution: edge endpoints as item positions (-1 = not an input item), the
// parsed form of each edge, which edges are unsatisfied, and per-blocker memos so each blocker's facts are
// fetched, evaluated and explained once per form rather than once per edge.
class EdgeResolution {
  readonly blockerOf: Int32Array;
  readonly dependentOf: Int32Array;
  readonly unsatisfied: Uint8Array;
  readonly graphEdge: Uint8Array;
  readonly unsatisfiedCount: Int32Array;
  readonly unblocks: Int32Array;
  readonly selfLoop: Uint8Array;
  // reason of each unsatisfied edge into a candidate, as an index into reasonText; -1 otherwise
  readonly reasonOf: Int32Array;
  readonly reasonText: string[] = [];
  unsatisfiedTotal = 0;
  anySelfLoop = false;

  private readonly forms: ParsedSatisfaction[] = [];
  private readonly formIds = new Map<string, number>();
  private readonly satisfiedForm: Int32Array;
  private readonly satisfiedMemo: Uint8Array;
  private readonly reasonForm: Int32Array;
  private readonly reasonSlot: Int32Array;
  // per form: stage order (shared by every item of a workflow version) → blocker status → reason tail
  private readonly tailCache: (Map<readonly string[] | undefined, Map<string, string>> | undefined)[] = [];
  private readonly options: SatisfactionOptions;

  constructor(
    private readonly items: readonly FrontierInputItem[],
    private readonly edges: readonly FrontierEdge[],
    private readonly blockerFacts: ReadonlyMap<number, BlockerFacts>,
    acceptForeignRuns: boolean,
  ) {
    const n = items.length;
    const m = edges.length;
    this.options = { acceptForeignRuns };
    this.blockerOf = new Int32Array(m);
    this.dependentOf = new Int32Array(m);
    this.unsatisfied = new Uint8Array(m);
    this.graphEdge = new Uint8Array(m);
    this.reasonOf = new Int32Array(m).fill(-1);
    this.unsatisfiedCount = new Int32Array(n);
    this.unblocks = new Int32Array(n);
    this.selfLoop = new Uint8Array(n);
    this.satisfiedForm = new Int32Array(n).fill(-1);
    this.satisfiedMemo = new Uint8Array(n);
    this.reasonForm = new Int32Array(n).fill(-1);
    this.reasonSlot = new Int32Array(n);
  }

  // Steps 2 and 3: satisfaction of every edge, its reason when it blocks a candidate, and unblocks_count, in
  // one pass, so each blocker's facts are read while they are at hand.
  resolve(index: ItemIndex, isCandidate: Uint8Array): void {
    const { edges, blockerOf, dependentOf, unsatisfied, graphEdge, unsatisfiedCount, unblocks } = this;
    let lastRaw: string | undefined;
    let formId = -1;
    for (let e = 0; e < edges.length; e++) {
      const edge = edges[e];
      const d = lookupIndex(index, edge.dependent);
      const b = lookupIndex(index, edge.blocker);
      dependentOf[e] = d;
      blockerOf[e] = b;
      if (d < 0) {
        continue;
      }
      const raw = edge.satisfaction;
      if (raw !== lastRaw) {
        lastRaw = raw;
        formId = this.formId(raw);
      }
      let facts: BlockerFacts | undefined;
      let satisfied: boolean;
      if (b >= 0 && this.satisfiedForm[b] === formId) {
        satisfied = this.satisfiedMemo[b] === 1;
      } else {
        facts = this.blockerFacts.get(edge.blocker);
        satisfied = isSatisfied(this.forms[formId], facts, this.options);
        if (b >= 0) {
          this.satisfiedForm[b] = formId;
          this.satisfiedMemo[b] = satisfied ? 1 : 0;
        }
      }
      if (!satisfied) {
        unsatisfied[e] = 1;
        unsatisfiedCount[d]++;
        this.unsatisfiedTotal++;
        if (b === d) {
          this.selfLoop[d] = 1;
          this.anySelfLoop = true;
        }
        if (isCandidate[d] === 1) {
          this.reasonOf[e] = this.reasonSlotFor(edge.blocker, b, formId, facts);
        }
      }
      if (b >= 0 && b !== d) {
        graphEdge[e] = 1;
        unblocks[b]++;
      }
    }
  }

  private formId(raw: string): number {
    let id = this.formIds.get(raw);
    if (id === undefined) {
      id = this.forms.length;
      this.forms.push(parseSatisfaction(raw));
      this.formIds.set(raw, id);
    }
    return id;
  }

  // Reason texts are append-only; the memo keeps the latest slot of each blocker. Tails that depend only on
  // (form, status) are shared across blockers, so most reasons cost one concatenation.
  private reasonSlotFor(blockerId: number, b: number, formId: number, known: BlockerFacts | undefined): number {
    if (b >= 0 && this.reasonForm[b] === formId) {
      return this.reasonSlot[b];
    }
    const facts = known ?? this.blockerFacts.get(blockerId);
    const form = this.forms[formId];
    let reason: string;
    if (facts && facts.status !== null && (form.kind === 'status' || form.kind === 'merged')) {
      let byOrder = this.tailCache[formId];
      if (byOrder === undefined) {
        byOrder = new Map();
        this.tailCache[formId] = byOrder;
      }
      let tails = byOrder.get(facts.stageOrder);
      if (tails === undefined) {
        tails = new Map();
        byOrder.set(facts.stageOrder, tails);
      }
      let tail = tails.get(facts.status);
      if (tail === undefined) {
        tail = satisfactionReasonTail(form, facts, this.options);
        tails.set(facts.status, tail);
      }
      reason = (facts.ref ?? (b >= 0 ? this.items[b].ref : 'blocker')) + tail;
    } else {
      const blockerRef = facts?.ref ?? (b >= 0 ? this.items[b].ref : undefined);
      reason = satisfactionReason(form, facts, { acceptForeignRuns: this.options.acceptForeignRuns, blockerRef });
    }
    const slot = this.reasonText.length;
    this.reasonText.push(reason);
    if (b >= 0) {
      this.reasonForm[b] = formId;
      this.reasonSlot[b] = slot;
    }
    return slot;
  }
}

// Step 4: downstream_depth. Tarjan emits components sinks-first, so every dependent outside a node's own
// component is final before the node; edges inside a component (cycle edges) are ignored.
function downstreamDepth(graph: CompactGraph, depth: Int32Array): boolean {
  const { offsets, targets } = graph;
  const { componentOf, order } = stronglyConnectedComponents(graph);
  let hasCycle = false;
  for (let k = 0; k < order.length; k++) {
    const v = order[k];
    const component = componentOf[v];
    let best = 0;
    for (let slot = offsets[v]; slot < offsets[v + 1]; slot++) {
      const w = targets[slot];
      if (componentOf[w] === component) {
        hasCycle = true;
      } else if (depth[w] + 1 > best) {
        best = depth[w] + 1;
      }
    }
    depth[v] = best;
  }
  return hasCycle;
}

// Cycles made only of unsatisfied edges can never clear on their own: one named cycle per such component,
// shared by all its members.
function namedStuckCycles(
  items: readonly FrontierInputItem[],
  resolution: EdgeResolution,
  cycles: number[][],
): Map<number, string> {
  const n = items.length;
  const m = resolution.unsatisfied.length;
  const include = new Uint8Array(m);
  for (let e = 0; e < m; e++) {
    include[e] = resolution.unsatisfied[e] === 1 && resolution.blockerOf[e] >= 0 ? 1 : 0;
  }
  const stuck = buildCompactGraph(n, resolution.blockerOf, resolution.dependentOf, m, include);
  const components = stronglyConnectedComponents(stuck);
  const reasonOfComponent = new Map<number, string>();
  const cycleReason = new Map<number, string>();
  const label = (v: number): string => items[v].ref;
  for (let v = 0; v < n; v++) {
    const component = components.componentOf[v];
    if (components.componentSize[component] === 1 && resolution.selfLoop[v] === 0) {
      continue;
    }
    let reason = reasonOfComponent.get(component);
    if (reason === undefined) {
      const path = cycleThrough(stuck, components.componentOf, v) ?? [v, v];
      cycles.push(path.map((p) => items[p].id));
      reason = formatCycle(path, label);
      reasonOfComponent.set(component, reason);
    }
    cycleReason.set(v, reason);
  }
  return cycleReason;
}

interface GroupedEdges {
  start: Int32Array;
  blockerId: Float64Array;
  reason: Int32Array;
}

// Unsatisfied edges grouped by dependent (counting sort, edge order kept), with blocker id and reason slot
// copied out so each output item reads its blockers from one contiguous range.
function groupUnsatisfied(resolution: EdgeResolution, edges: readonly FrontierEdge[], n: number): GroupedEdges {
  const { unsatisfiedCount, unsatisfied, dependentOf, reasonOf } = resolution;
  const start = new Int32Array(n + 1);
  for (let v = 0; v < n; v++) {
    start[v + 1] = start[v] + unsatisfiedCount[v];
  }
  const blockerId = new Float64Array(resolution.unsatisfiedTotal);
  const reason = new Int32Array(resolution.unsatisfiedTotal);
  if (resolution.unsatisfiedTotal > 0) {
    const cursor = start.slice(0, n);
    for (let e = 0; e < unsatisfied.length; e++) {
      if (unsatisfied[e] === 1) {
        const slot = cursor[dependentOf[e]]++;
        blockerId[slot] = edges[e].blocker;
        reason[slot] = reasonOf[e];
      }
    }
  }
  return { start, blockerId, reason };
}

// Ranking keys precomputed once, then one sort. priority, depth and unblocks pack exactly into one double
// (2 + 22 + 22 bits; counts saturate at 2^22 - 1); lifecycle (negated, closer to done first) and created_at pack
// into a second one whenever both fit exactly, else they are compared one after the other.
function rankCandidates(
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

function toFrontierItem(
  item: FrontierInputItem,
  v: number,
  resolution: EdgeResolution,
  grouped: GroupedEdges,
  cycleReason: Map<number, string> | null,
  depth: Int32Array,
): FrontierItem {
  const edgeCount = resolution.unsatisfiedCount[v];
  const waiting = edgeCount > 0 || item.blocked;
  let blockedBy: readonly number[] = NO_BLOCKERS;
  let reasons: readonly string[] = NO_REASONS;
  if (waiting) {
    const cycle = cycleReason?.get(v);
    const ids = new Array<number>(edgeCount);
    const texts = new Array<string>((item.blocked ? 1 : 0) + (cycle === undefined ? 0 : 1) + edgeCount);
    let at = 0;
    if (item.blocked) {
      texts[at++] = item.blockedReason ? `blocked by operator: ${item.blockedReason}` : 'blocked by operator';
    }
    if (cycle !== undefined) {
      texts[at++] = cycle;
    }
    const start = grouped.start[v];
    const reasonText = resolution.reasonText;
    for (let k = 0; k < edgeCount; k++) {
      ids[k] = grouped.blockerId[start + k];
      texts[at++] = reasonText[grouped.reason[start + k]];
    }
    blockedBy = ids;
    reasons = texts;
  }
  return {
    item_id: item.id,
    ref: item.ref,
    title: item.title,
    status: item.status,
    priority: item.priority,
    project: item.project,
    workflow_id: item.workflowId,
    workflow_version_id: item.workflowVersionId,
    adapter: waiting ? 'wait' : item.stageAdapter,
    blocked_by: blockedBy,
    blocked_reasons: reasons,
    unblocks_count: resolution.unblocks[v],
    downstream_depth: depth[v],
    created_at: item.createdAt,
    stage_adapter: item.stageAdapter,
    lifecycle_rank: item.lifecycleRank,
    is_epic: item.isEpic,
    frozen: item.frozen,
    blocked_flag: item.blocked,
  };
}

export function computeFrontier(input: FrontierInput): FrontierComputation {
  const { items, edges, blockerFacts } = input;
  const n = items.length;
  const index = indexItems(items);

  // Step 1: candidates; step 5: wip_active over every input item.
  const candidates: number[] = [];
  const isCandidate = new Uint8Array(n);
  let wipActive = 0;
  for (let v = 0; v < n; v++) {
    if (index.keep[v] === 0) {
      continue;
    }
    const item = items[v];
    const status = item.status;
    if (!item.frozen && (status === 'implementing' || status === 'reviewing-implementation')) {
      wipActive++;
    }
    if (!isTerminalStatus(status) && (item.blocked || CHARGE_RELEVANT.has(status))) {
      candidates.push(v);
      isCandidate[v] = 1;
    }
  }

  const resolution = new EdgeResolution(items, edges, blockerFacts, input.acceptForeignRuns ?? false);
  resolution.resolve(index, isCandidate);

  const depth = new Int32Array(n);
  const graph = buildCompactGraph(n, resolution.blockerOf, resolution.dependentOf, edges.length, resolution.graphEdge);
  const hasCycle = downstreamDepth(graph, depth);
  const cycles: number[][] = [];
  const cycleReason = hasCycle || resolution.anySelfLoop ? namedStuckCycles(items, resolution, cycles) : null;

  // Output objects are built in input order (sequential reads of items and arrays), then placed by rank.
  const grouped = groupUnsatisfied(resolution, edges, n);
  const built: FrontierItem[] = new Array<FrontierItem>(n);
  const bucketOf = new Uint8Array(n);
  for (let k = 0; k < candidates.length; k++) {
    const v = candidates[k];
    const item = items[v];
    built[v] = toFrontierItem(item, v, resolution, grouped, cycleReason, depth);
    bucketOf[v] = item.frozen ? FROZEN : item.blocked || resolution.unsatisfiedCount[v] > 0 ? BLOCKED : RUNNABLE;
  }
  rankCandidates(candidates, items, index.ids, depth, resolution.unblocks);

  // Steps 7 and 8: reclassification (done in toFrontierItem) and partition, in rank order.
  const runnable: FrontierItem[] = [];
  const blocked: FrontierItem[] = [];
  const frozen: FrontierItem[] = [];
  for (let k = 0; k < candidates.length; k++) {
    const v = candidates[k];
    const bucket = bucketOf[v];
    (bucket === RUNNABLE ? runnable : bucket === BLOCKED ? blocked : frozen).push(built[v]);
  }

  const wipCap = Number.isFinite(input.wipCap) ? Math.max(0, Math.floor(input.wipCap)) : DEFAULT_WIP_CAP;
  const { eligible, suppressed, remaining } = applyWipCap(runnable, wipCap, wipActive);
  return {
    runnable,
    blocked,
    frozen,
    wip_cap: wipCap,
    wip_active: wipActive,
    conduct_eligible: eligible,
    wip_remaining: remaining,
    wip_suppressed: suppressed,
    cycles,
  };
}

// Resolves internal ids to public refs from what the computation already holds (items, then blocker facts).
export function createRefResolver(
  items: readonly FrontierInputItem[],
  blockerFacts: ReadonlyMap<number, BlockerFacts>,
): (id: number) => string | undefined {
  const refs = new Map<number, string>();
  for (const [id, facts] of blockerFacts) {
    if (facts.ref !== undefined) {
      refs.set(id, facts.ref);
    }
  }
  for (const item of items) {
    refs.set(item.id, item.ref);
  }
  return (id) => refs.get(id);
}

// Blockers whose ref cannot be resolved (deleted items) are left out of blocked_by: internal ids never leak;
// the matching blocked_reasons entry still says the blocker no longer exists.
export function toFrontierItemWire(item: FrontierItem, refOf: (id: number) => string | undefined): FrontierItemWire {
  const blockedBy: string[] = [];
  for (const id of item.blocked_by) {
    const ref = refOf(id);
    if (ref !== undefined) {
      blockedBy.push(ref);
    }
  }
  return {
    item_id: item.ref,
    title: item.title,
    status: item.status,
    priority: item.priority,
    project: item.project,
    workflow_id: item.workflow_id,
    workflow_version_id: item.workflow_version_id,
    adapter: item.adapter,
    blocked_by: blockedBy,
    blocked_reasons: item.blocked_reasons.slice(),
    unblocks_count: item.unblocks_count,
    downstream_depth: item.downstream_depth,
    created_at: toZonelessIso(item.created_at),
  };
}

export function toFrontierResultWire(
  computation: FrontierComputation,
  refOf: (id: number) => string | undefined,
): FrontierResultWire {
  const render = (item: FrontierItem): FrontierItemWire => toFrontierItemWire(item, refOf);
  return {
    runnable: computation.runnable.map(render),
    blocked: computation.blocked.map(render),
    frozen: computation.frozen.map(render),
    wip_cap: computation.wip_cap,
    wip_active: computation.wip_active,
    conduct_eligible: computation.conduct_eligible.map(render),
  };
}
