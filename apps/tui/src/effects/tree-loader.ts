import { detailEdges } from '../state/edges';
import type { State } from '../state/state';
import { TREE_READS, treeWants } from '../state/tree';
import type { EffectsContext } from './context';

const IN_FLIGHT = 3;

// TREE_READS at most per opened tree; past that, or after a failed read, a node is answered null ("not read"): the
// tree never waits on a read that will not come.
export class TreeLoader {
  private root: string | null = null;
  private asked = new Set<string>();
  private queue: string[] = [];
  private running = 0;

  constructor(private readonly ctx: EffectsContext) {}

  onAction(previous: State, next: State): void {
    const d = next.dialog;
    if (d?.kind !== 'picker' || d.purpose !== 'tree') {
      this.root = null;
      return;
    }
    const p = previous.dialog;
    const reopened = p?.kind !== 'picker' || p.purpose !== 'tree' || p.refs[0] !== d.refs[0];
    if (reopened || this.root !== d.refs[0]) {
      this.root = d.refs[0];
      this.asked = new Set();
      this.queue = [];
    }
    for (const ref of treeWants(next)) {
      if (this.asked.has(ref)) continue;
      this.asked.add(ref);
      if (this.asked.size > TREE_READS) {
        // answered after this action's listeners, as a read would be
        const root = d.refs[0];
        queueMicrotask(() => this.ctx.dispatch({ type: 'tree_edges_loaded', root, ref, edges: null }));
      } else {
        this.queue.push(ref);
      }
    }
    this.pump();
  }

  private pump(): void {
    while (this.running < IN_FLIGHT && this.queue.length > 0) {
      const ref = this.queue.shift()!;
      const root = this.root!;
      this.running++;
      void this.read(root, ref).finally(() => {
        this.running--;
        if (this.root === root) this.pump();
      });
    }
  }

  private async read(root: string, ref: string): Promise<void> {
    let edges = null;
    try {
      const stored = await this.ctx.config.api.dependencies(ref, { direction: 'both' });
      edges = detailEdges(stored.dependencies, [], []);
    } catch {
      // said on the node's row ("not read")
    }
    if (this.root === root) this.ctx.dispatch({ type: 'tree_edges_loaded', root, ref, edges });
  }
}
