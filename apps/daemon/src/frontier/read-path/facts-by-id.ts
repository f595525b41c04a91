import { BlockerFacts } from '@app/core';

// MIN_RANGE lets a small project's ids a few thousand apart still use an array.
const MAX_SPREAD = 4;
const MIN_RANGE = 4096;

// A project's blocker facts by item id, for the core's hottest lookup. Item ids are serial keys, so a project's
// ids fill most of a range: an array indexed by id is read in id order, where a Map hashes every lookup to a
// scattered bucket. Ids outside the range, or not safe integers, spill into a Map. Iterates in insertion order.
export class FactsById implements ReadonlyMap<number, BlockerFacts> {
  private constructor(
    private readonly low: number,
    private readonly slots: (BlockerFacts | undefined)[],
    private readonly spill: Map<number, BlockerFacts>,
    private readonly order: number[],
  ) {}

  static forRows(...lists: readonly (readonly { id: number }[])[]): FactsById | Map<number, BlockerFacts> {
    let low = Infinity;
    let high = -Infinity;
    let count = 0;
    for (const rows of lists) {
      count += rows.length;
      for (let i = 0; i < rows.length; i++) {
        const id = rows[i].id;
        if (!Number.isSafeInteger(id)) return new Map();
        if (id < low) low = id;
        if (id > high) high = id;
      }
    }
    const range = high - low + 1;
    if (!(range > 0) || range > count * MAX_SPREAD + MIN_RANGE) return new Map();
    // pushed, not `new Array(range)`: a long array made by length alone gets dictionary elements
    const slots: (BlockerFacts | undefined)[] = [];
    for (let i = 0; i < range; i++) slots.push(undefined);
    return new FactsById(low, slots, new Map(), []);
  }

  with(entries: Iterable<[number, BlockerFacts]>, without: ReadonlySet<number> = new Set()): FactsById {
    const order = without.size === 0 ? this.order.slice() : this.order.filter((id) => !without.has(id));
    const copy = new FactsById(this.low, this.slots.slice(), new Map(this.spill), order);
    for (const id of without) {
      const at = id - this.low;
      if (Number.isSafeInteger(id) && at >= 0 && at < copy.slots.length) copy.slots[at] = undefined;
      else copy.spill.delete(id);
    }
    for (const [id, facts] of entries) copy.set(id, facts);
    return copy;
  }

  set(id: number, facts: BlockerFacts): this {
    const at = id - this.low;
    if (Number.isSafeInteger(id) && at >= 0 && at < this.slots.length) {
      if (this.slots[at] === undefined) this.order.push(id);
      this.slots[at] = facts;
    } else {
      if (!this.spill.has(id)) this.order.push(id);
      this.spill.set(id, facts);
    }
    return this;
  }

  get(id: number): BlockerFacts | undefined {
    const at = id - this.low;
    // an in-range integer id is only ever in the array; anything else (fractions, NaN, far ids) only in the spill
    if (at >= 0 && at < this.slots.length && (at | 0) === at) return this.slots[at];
    return this.spill.size === 0 ? undefined : this.spill.get(id);
  }

  has(id: number): boolean {
    return this.get(id) !== undefined;
  }

  get size(): number {
    return this.order.length;
  }

  forEach(callback: (value: BlockerFacts, key: number, map: ReadonlyMap<number, BlockerFacts>) => void): void {
    for (const id of this.order) callback(this.get(id)!, id, this);
  }

  *entries(): MapIterator<[number, BlockerFacts]> {
    for (const id of this.order) yield [id, this.get(id)!];
  }

  *keys(): MapIterator<number> {
    yield* this.order;
  }

  *values(): MapIterator<BlockerFacts> {
    for (const id of this.order) yield this.get(id)!;
  }

  [Symbol.iterator](): MapIterator<[number, BlockerFacts]> {
    return this.entries();
  }
}
