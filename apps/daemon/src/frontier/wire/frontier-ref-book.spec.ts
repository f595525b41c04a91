import fc from 'fast-check';

import { RefBook, refsDiffer, refsOf } from './frontier-ref-book';

describe(RefBook.name, () => {
  // ids 0..5, refs 'A'/'B'/absent
  const step = fc.tuple(fc.nat(5), fc.constantFrom<string | undefined>('A', 'B', undefined));

  it('should give every earlier version its refs as they were, and name every id that differs between two', () => {
    fc.assert(
      fc.property(fc.array(fc.array(step, { maxLength: 4 }), { minLength: 1, maxLength: 12 }), (answers) => {
        const book = new RefBook();
        const snapshots: { version: number; refs: Map<number, string | undefined> }[] = [];
        const current = new Map<number, string | undefined>();
        for (const sets of answers) {
          for (const [id, ref] of sets) {
            book.set(id, ref);
            current.set(id, ref);
          }
          snapshots.push({ version: book.version, refs: new Map(current) });
        }
        for (const a of snapshots) {
          const at = { book, version: a.version };
          for (const [id, ref] of a.refs) expect(refsOf(at)(id)).toBe(ref);
          for (const b of snapshots) {
            const differ = refsDiffer(at, { book, version: b.version });
            for (const [id, ref] of a.refs) {
              // an id named by both whose ref differs is always reported
              if (b.refs.has(id) && b.refs.get(id) !== ref) expect(differ?.([id])).toBe(true);
            }
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('should report no difference between answers of one version, and compare two books id by id', () => {
    const book = new RefBook();
    book.set(1, 'BN-1');
    book.set(2, 'BN-2');
    expect(refsDiffer({ book, version: 0 }, { book, version: 0 })).toBeNull();
    book.set(2, undefined);
    expect(book.version).toBe(1);
    const differ = refsDiffer({ book, version: 0 }, { book, version: 1 })!;
    expect(differ([1])).toBe(false);
    expect(differ([1, 2])).toBe(true);
    const other = new RefBook();
    other.set(1, 'BN-1');
    other.set(2, 'BN-2');
    expect(refsDiffer({ book, version: 0 }, { book: other, version: 0 })!([1, 2])).toBe(false);
    expect(refsDiffer({ book, version: 1 }, { book: other, version: 0 })!([2])).toBe(true);
  });
});
