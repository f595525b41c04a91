import { DependencyPair } from './cycles';

// The activation edges of one organization in memory, for the cycle check of a dependency add: each edge
// once, by its stored id, with the items' dependents and blockers, and a label per item such that every edge goes
// from a lower label to a higher one (a pseudo-topological order, kept as edges come and go).
//
// A path from d down to b only climbs labels, so a new edge b → d with label(b) < label(d) closes no cycle: that
// answer costs two lookups, and it is the usual one (a new dependent is newer than its blocker). Otherwise the search
// walks only the items whose labels lie between the two ends, from both ends at once (shortestCycleIfAdded), and an
// edge added after the check raises the labels below it that it must. While the edges hold a cycle (plain SQL, an
// import of a stuck backlog) no labels fit: the search walks the whole reach, and the labels are computed again
// after a removal that may have broken the cycle.
export class ActivationGraph {
  private readonly dependents = new Map<number, number[]>();
  private readonly blockers = new Map<number, number[]>();
  private readonly edges = new Map<number, DependencyPair>();
  private readonly labels = new Map<number, number>();
  // the labels fit every edge (false while the edges hold a cycle)
  private ordered = true;
  // an edge was removed since the labels last failed to fit: computing them again may succeed
  private retry = false;

  get size(): number {
    return this.edges.size;
  }

  has(id: number): boolean {
    return this.edges.has(id);
  }

  // Many edges at once (a load): the labels are computed once after them.
  load(edges: Iterable<readonly [id: number, blocker: number, dependent: number]>): void {
    for (const [id, blocker, dependent] of edges) {
      if (this.edges.has(id)) this.remove(id);
      this.edges.set(id, { blocker, dependent });
      push(this.dependents, blocker, dependent);
      push(this.blockers, dependent, blocker);
    }
    this.ordered = false;
    this.relabel();
  }

  // Adds (or replaces) the edge with this id.
  add(id: number, blocker: number, dependent: number): void {
    if (this.edges.has(id)) this.remove(id);
    this.edges.set(id, { blocker, dependent });
    push(this.dependents, blocker, dependent);
    push(this.blockers, dependent, blocker);
    if (this.ordered && !this.raise(blocker, dependent)) {
      this.ordered = false;
      this.retry = false;
    }
  }

  remove(id: number): void {
    const edge = this.edges.get(id);
    if (edge === undefined) return;
    this.edges.delete(id);
    pull(this.dependents, edge.blocker, edge.dependent);
    pull(this.blockers, edge.dependent, edge.blocker);
    if (!this.ordered) this.retry = true;
  }

  // findCycleIfAdded over these edges: null, or a shortest cycle [dependent, ..., blocker, dependent].
  cycleIfAdded(blocker: number, dependent: number): number[] | null {
    if (blocker === dependent) return [dependent, dependent];
    if (!this.ordered && this.retry) this.relabel();
    if (!this.ordered) {
      return shortestCycleIfAdded({ blocker, dependent }, this.dependents, this.blockers);
    }
    const low = this.label(dependent);
    const high = this.label(blocker);
    if (high < low) return null;
    return shortestCycleIfAdded({ blocker, dependent }, this.dependents, this.blockers, (v) => {
      const at = this.label(v);
      return at >= low && at <= high;
    });
  }

  private label(v: number): number {
    return this.labels.get(v) ?? 0;
  }

  // After blocker → dependent was added: raises the labels below it until every edge climbs again. False when the
  // raise comes back to the blocker (the edge closed a cycle).
  private raise(blocker: number, dependent: number): boolean {
    if (blocker === dependent) return false;
    if (this.label(blocker) < this.label(dependent)) return true;
    this.labels.set(dependent, this.label(blocker) + 1);
    const stack = [dependent];
    while (stack.length > 0) {
      const v = stack.pop()!;
      const above = this.label(v);
      for (const w of this.dependents.get(v) ?? []) {
        if (w === blocker) return false;
        if (this.label(w) <= above) {
          this.labels.set(w, above + 1);
          stack.push(w);
        }
      }
    }
    return true;
  }

  // Longest-path labels over every edge (Kahn's order); they fit unless the edges hold a cycle. After a bulk load.
  private relabel(): void {
    this.retry = false;
    const items = new Set([...this.dependents.keys(), ...this.blockers.keys()]);
    const waiting = new Map<number, number>();
    const labels = new Map<number, number>();
    const queue: number[] = [];
    for (const v of items) {
      const count = this.blockers.get(v)?.length ?? 0;
      waiting.set(v, count);
      if (count === 0) queue.push(v);
    }
    for (let head = 0; head < queue.length; head++) {
      const v = queue[head];
      const next = (labels.get(v) ?? 0) + 1;
      for (const w of this.dependents.get(v) ?? []) {
        if ((labels.get(w) ?? 0) < next) labels.set(w, next);
        const left = waiting.get(w)! - 1;
        waiting.set(w, left);
        if (left === 0) queue.push(w);
      }
    }
    // an item never placed waits on a cycle: no labels fit
    if (queue.length < items.size) return;
    this.labels.clear();
    for (const [v, at] of labels) this.labels.set(v, at);
    this.ordered = true;
  }
}

function push(map: Map<number, number[]>, key: number, value: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

function pull(map: Map<number, number[]>, key: number, value: number): void {
  const list = map.get(key);
  if (list === undefined) return;
  const at = list.indexOf(value);
  if (at >= 0) list.splice(at, 1);
  if (list.length === 0) map.delete(key);
}

// findCycleIfAdded without building the whole graph: a bidirectional breadth-first search, down the dependent's
// dependents and up the blocker's blockers, a whole level at a time, always on the side whose frontier is smaller,
// until the two meet or one side runs out; `keep` may leave out items no path from the dependent to the blocker can
// pass through. The same answer as findCycleIfAdded: null, or a shortest cycle [dependent, ..., blocker, dependent]
// (among cycles of that length, not necessarily the same one).
export function shortestCycleIfAdded(
  newEdge: DependencyPair,
  dependentsOf: ReadonlyMap<number, readonly number[]>,
  blockersOf: ReadonlyMap<number, readonly number[]>,
  keep: (item: number) => boolean = () => true,
): number[] | null {
  const { blocker, dependent } = newEdge;
  if (blocker === dependent) return [dependent, dependent];
  // item → [the item it was reached from, its distance from its side's start]
  const down = new Map<number, [number, number]>([[dependent, [-1, 0]]]);
  const up = new Map<number, [number, number]>([[blocker, [-1, 0]]]);
  let downFront = [dependent];
  let upFront = [blocker];
  while (downFront.length > 0 && upFront.length > 0) {
    const goingDown = downFront.length <= upFront.length;
    const [front, mine, theirs, next] = goingDown
      ? [downFront, down, up, dependentsOf]
      : [upFront, up, down, blockersOf];
    const level = mine.get(front[0])![1] + 1;
    const reached: number[] = [];
    let meet = -1;
    let meetDistance = Infinity;
    for (const from of front) {
      for (const to of next.get(from) ?? []) {
        if (mine.has(to) || !keep(to)) continue;
        mine.set(to, [from, level]);
        reached.push(to);
        const other = theirs.get(to);
        if (other !== undefined && other[1] < meetDistance) {
          meet = to;
          meetDistance = other[1];
        }
      }
    }
    if (meet !== -1) {
      // dependent → … → meet along the down side, then meet → … → blocker along the up side
      const path: number[] = [];
      for (let at = meet; at !== -1; at = down.get(at)![0]) path.push(at);
      path.reverse();
      for (let at = up.get(meet)![0]; at !== -1; at = up.get(at)![0]) path.push(at);
      path.push(dependent);
      return path;
    }
    if (goingDown) downFront = reached;
    else upFront = reached;
  }
  return null;
}
