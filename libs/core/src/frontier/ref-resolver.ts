import { BlockerFacts } from '../dependencies/satisfaction';
import { FrontierInputItem } from './vocabulary';

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
