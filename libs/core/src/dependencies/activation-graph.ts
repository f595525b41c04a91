import { DependencyPair } from './cycles';

// Labels form a pseudo-topological order kept as edges come and go: a path from d down to b only climbs labels, so a
// new edge b → d with label(b) < label(d) closes no cycle in two lookups (the usual case: a dependent is newer than
// its blocker). Otherwise the search walks only the items labelled between the two ends. While the edges hold a
// cycle (plain SQL, an import of a stuck backlog) no labels fit, and they are recomputed after a removal.
export class ActivationGraph {
  private readonly dependents = new Map<number, number[]>();
  private readonly blockers = new Map<number, number[]>();
  private readonly edges = new Map<number, DependencyPair>();
  private readonly labels = new Map<number, number>();
  private ordered = true;
  // an edge was removed since the labels last failed to fit: computing them again may succeed
  private retry = false;

  get size(): number {
    return this.edges.size;
  }

  has(id: number): boolean {
    return this.edges.has(id);
  }

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

  // False when the raise comes back to the blocker: the edge closed a cycle.
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

// Bidirectional breadth-first search, a whole level at a time on the side whose frontier is smaller; `keep` may leave
// out items no path from the dependent to the blocker can pass through. Answers as findCycleIfAdded does (a shortest
// cycle, not necessarily the same one).
export function shortestCycleIfAdded(
  newEdge: DependencyPair,
  dependentsOf: ReadonlyMap<number, readonly number[]>,
  blockersOf: ReadonlyMap<number, readonly number[]>,
  keep: (item: number) => boolean = () => true,
): number[] | null {
  const { blocker, dependent } = newEdge;
  if (blocker === dependent) return [dependent, dependent];
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
