// bench/live's mixed-writes phase (issue 27, the daemon's memory target): what one writer does next. Pure: the
// runner (mixed.ts) sends each planned write through SvcApi and tells the plan how it went (settle).
//
// A writer cycles over six kinds of write, one per call: a priority change, a status move, block/unblock, freeze/
// unfreeze, add/remove a dependency, a new item. The toggles alternate on the writer's own item (block an item, the
// next block-kind write unblocks it), so nothing piles up but new items. Each kind walks the writer's pool with its
// own cursor; items the writer created join its pool.

export const MIXED_KINDS = ['priority', 'status', 'block', 'freeze', 'dependency', 'create'] as const;
export type MixedKind = (typeof MIXED_KINDS)[number];

const PRIORITY_CYCLE = ['high', 'medium', 'low'] as const;

export type MixedOp =
  | { op: 'priority'; ref: string; to: string }
  | { op: 'status'; ref: string; to: string }
  | { op: 'block'; ref: string; reason: string }
  | { op: 'unblock'; ref: string }
  | { op: 'freeze'; ref: string }
  | { op: 'unfreeze'; ref: string }
  // dependent newer than blocker (a larger project sequence): every edge of the generated backlog goes from an older
  // blocker to a newer dependent, so edges added this way never close a cycle
  | { op: 'dependency-add'; dependent: string; blocker: string }
  | { op: 'dependency-remove'; dependent: string; blocker: string }
  | { op: 'create'; title: string; priority: string };

export type MixedOpName = MixedOp['op'];

export interface PoolItem {
  ref: string;
  status: string;
  priority: string;
  workflow_id: string;
}

// done: the daemon took it (2xx); refused: it answered 4xx (a gate, a conflict); error: 5xx or no answer.
export type MixedOutcome = 'done' | 'refused' | 'error';

// What the runner learned from a write the daemon took.
export interface MixedSettle {
  // dependency-add: false when the edge was already there (then it is not ours to remove)
  created?: boolean;
  // create: the new item
  item?: PoolItem;
}

// The project sequence of a public ref (BN-123 → 123).
export function refSeq(ref: string): number {
  const at = ref.lastIndexOf('-');
  return Number(ref.slice(at + 1));
}

// The stage a status move goes to, through the workflow's stages in their order. `path` is the non-terminal stages
// then the terminal the item is resolved to (done): an item walks forward to done and back down; a refused move
// (a gate) turns it round (the caller flips `direction`); from a terminal stage it is reopened at the first stage.
export function nextStage(
  path: readonly string[],
  current: string,
  direction: 1 | -1,
): { to: string; direction: 1 | -1 } | null {
  if (path.length < 2) return null;
  const at = path.indexOf(current);
  if (at < 0 || at === path.length - 1) return { to: path[0], direction: 1 };
  let d = direction;
  if (at + d < 0 || at + d >= path.length) d = d === 1 ? -1 : 1;
  return { to: path[at + d], direction: d };
}

// The path of a workflow definition's stages: the non-terminal ones in order, then `done` (or its first terminal).
export function statusPath(stages: readonly { id: string; terminal?: boolean }[]): string[] {
  const open = stages.filter((s) => !s.terminal).map((s) => s.id);
  const terminals = stages.filter((s) => s.terminal).map((s) => s.id);
  const end = terminals.includes('done') ? 'done' : terminals[0];
  return end === undefined ? open : [...open, end];
}

export class MixedWriter {
  private count = 0;
  private readonly cursor = new Map<MixedKind, number>();
  private readonly direction = new Map<string, 1 | -1>();
  private blocked: string | null = null;
  private frozen: string | null = null;
  private edge: { dependent: string; blocker: string } | null = null;
  private created = 0;

  constructor(
    readonly writer: number,
    private readonly pool: PoolItem[],
    // status path per workflow id
    private readonly paths: ReadonlyMap<string, readonly string[]>,
    // the first kind of this writer, so writers started together do not all write the same kind at once
    private readonly offset = writer,
  ) {
    if (pool.length < 2) throw new Error(`writer ${writer}: a pool of at least two items is needed`);
  }

  get poolSize(): number {
    return this.pool.length;
  }

  private take(kind: MixedKind): PoolItem {
    const k = this.cursor.get(kind) ?? 0;
    this.cursor.set(kind, k + 1);
    return this.pool[k % this.pool.length];
  }

  next(): MixedOp {
    const kind = MIXED_KINDS[(this.count++ + this.offset) % MIXED_KINDS.length];
    switch (kind) {
      case 'priority': {
        const item = this.take(kind);
        const at = PRIORITY_CYCLE.indexOf(item.priority as (typeof PRIORITY_CYCLE)[number]);
        return { op: 'priority', ref: item.ref, to: PRIORITY_CYCLE[(at + 1) % PRIORITY_CYCLE.length] };
      }
      case 'status': {
        // an item already at the end of a one-stage path has nowhere to go: the next item (bounded by the pool)
        for (let tries = 0; tries < this.pool.length; tries++) {
          const item = this.take(kind);
          const step = nextStage(
            this.paths.get(item.workflow_id) ?? [],
            item.status,
            this.direction.get(item.ref) ?? 1,
          );
          if (!step) continue;
          this.direction.set(item.ref, step.direction);
          return { op: 'status', ref: item.ref, to: step.to };
        }
        throw new Error(`writer ${this.writer}: no item of the pool can move`);
      }
      case 'block':
        return this.blocked
          ? { op: 'unblock', ref: this.blocked }
          : { op: 'block', ref: this.take(kind).ref, reason: `mixed bench: writer ${this.writer}` };
      case 'freeze':
        return this.frozen ? { op: 'unfreeze', ref: this.frozen } : { op: 'freeze', ref: this.take(kind).ref };
      case 'dependency': {
        if (this.edge) return { op: 'dependency-remove', ...this.edge };
        const a = this.take(kind);
        let b = this.take(kind);
        if (b.ref === a.ref) b = this.take(kind);
        const [dependent, blocker] = refSeq(a.ref) > refSeq(b.ref) ? [a, b] : [b, a];
        return { op: 'dependency-add', dependent: dependent.ref, blocker: blocker.ref };
      }
      case 'create':
        return {
          op: 'create',
          title: `Mixed w${this.writer} #${++this.created}`,
          priority: PRIORITY_CYCLE[this.created % PRIORITY_CYCLE.length],
        };
    }
  }

  // How the write went. A toggle whose undo was refused or failed is let go (the next one starts afresh).
  settle(op: MixedOp, outcome: MixedOutcome, learned: MixedSettle = {}): void {
    const done = outcome === 'done';
    switch (op.op) {
      case 'priority':
        if (done) this.find(op.ref).priority = op.to;
        break;
      case 'status':
        if (done) this.find(op.ref).status = op.to;
        else if (outcome === 'refused') this.direction.set(op.ref, this.direction.get(op.ref) === -1 ? 1 : -1);
        break;
      case 'block':
        if (done) this.blocked = op.ref;
        break;
      case 'unblock':
        this.blocked = null;
        break;
      case 'freeze':
        if (done) this.frozen = op.ref;
        break;
      case 'unfreeze':
        this.frozen = null;
        break;
      case 'dependency-add':
        if (done && learned.created !== false) this.edge = { dependent: op.dependent, blocker: op.blocker };
        break;
      case 'dependency-remove':
        this.edge = null;
        break;
      case 'create':
        if (done && learned.item) this.pool.push(learned.item);
        break;
    }
  }

  private find(ref: string): PoolItem {
    return this.pool.find((i) => i.ref === ref)!;
  }
}
