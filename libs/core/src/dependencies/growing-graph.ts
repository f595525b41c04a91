import { DependencyPair } from './cycles';

// Checks each new edge of an import against the graph so far without rebuilding it per edge: a file of a thousand
// edges costs a thousand searches, not a thousand copies of the server's graph.
export class GrowingActivationGraph {
  private readonly dependentsOf = new Map<number, number[]>();

  constructor(pairs: readonly DependencyPair[] = []) {
    for (const pair of pairs) this.add(pair);
  }

  add({ blocker, dependent }: DependencyPair): void {
    const list = this.dependentsOf.get(blocker);
    if (list) list.push(dependent);
    else this.dependentsOf.set(blocker, [dependent]);
  }

  cycleIfAdded({ blocker, dependent }: DependencyPair): number[] | null {
    if (blocker === dependent) return [dependent, dependent];
    const parent = new Map<number, number>([[dependent, dependent]]);
    const queue = [dependent];
    for (let head = 0; head < queue.length; head++) {
      const v = queue[head];
      if (v === blocker) {
        const path = [v];
        for (let u = v; u !== dependent;) {
          u = parent.get(u)!;
          path.push(u);
        }
        path.reverse();
        path.push(dependent);
        return path;
      }
      for (const w of this.dependentsOf.get(v) ?? []) {
        if (!parent.has(w)) {
          parent.set(w, v);
          queue.push(w);
        }
      }
    }
    return null;
  }
}
