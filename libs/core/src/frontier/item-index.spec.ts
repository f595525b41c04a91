import {
  alignedByEdits,
  changedInPlace,
  indexItems,
  patchedSince,
  recordedEdit,
  recordEdit,
  recordItemsPatch,
} from './item-index';
import { FrontierInputItem } from './vocabulary';

const item = (id: number, title = `item ${id}`) => ({ id, title }) as FrontierInputItem;

describe('changedInPlace', () => {
  const base = [1, 2, 3, 4, 5].map((id) => item(id));
  const index = indexItems(base);

  it('should compare every position when the items carry no patch', () => {
    const items = base.slice();
    items[3] = item(4, 'new');
    items[1] = item(2, 'new');
    const changed = changedInPlace(items, base, index)!;
    expect(changed.list).toEqual([1, 3]);
    expect([...changed.mask]).toEqual([0, 1, 0, 1, 0]);
  });

  it('should look only at the positions a recorded patch names', () => {
    const items = base.slice();
    items[4] = item(5, 'new');
    items[0] = item(1, 'new');
    // the patch names 4 (and 2, which kept its object) but not 0: the run trusts the patch
    recordItemsPatch(items, base, [4, 2, 4]);
    const changed = changedInPlace(items, base, index)!;
    expect(changed.list).toEqual([4]);
    expect([...changed.mask]).toEqual([0, 0, 0, 0, 1]);
  });

  it('should follow patches back to the memo items, and name the union once in order', () => {
    const first = base.slice();
    first[3] = item(4, 'first');
    recordItemsPatch(first, base, [3]);
    const second = first.slice();
    second[1] = item(2, 'second');
    second[3] = item(4, 'second');
    recordItemsPatch(second, first, [3, 1]);
    expect(changedInPlace(second, base, index)!.list).toEqual([1, 3]);
    expect(changedInPlace(second, first, index)!.list).toEqual([1, 3]);
  });

  it('should compare every position when the patches lead elsewhere', () => {
    const other = base.slice();
    const items = other.slice();
    items[2] = item(3, 'new');
    recordItemsPatch(items, other, []);
    items[0] = item(1, 'late');
    // `other` is not the memo's items: the patch says nothing about them
    expect(changedInPlace(items, base, index)!.list).toEqual([0, 2]);
  });

  it('should answer null when a patched position holds another id', () => {
    const items = base.slice();
    items[2] = item(9);
    recordItemsPatch(items, base, [2]);
    expect(changedInPlace(items, base, index)).toBeNull();
  });
});

describe('recorded edits (recordEdit)', () => {
  const base = [1, 2, 3, 4, 5].map((id) => item(id));
  const aligned = (array: readonly FrontierInputItem[], previous: readonly FrontierInputItem[]) => {
    const positions = alignedByEdits(array, previous);
    return positions === null ? null : [...positions];
  };

  it('should name the base and the removed positions recorded for an array, and nothing for another', () => {
    const edited = base.filter((entry) => entry.id !== 3).concat([item(9)]);
    recordEdit(edited, base, [2]);
    expect(recordedEdit(edited)).toEqual({ base, removed: [2] });
    expect(recordedEdit(edited)?.base).toBe(base);
    expect(recordedEdit(base)).toBeUndefined();
  });

  it('should align through removals and growths to the array they came from, and not elsewhere', () => {
    const grown = base.concat([item(6)]);
    recordEdit(grown, base);
    // 2 and 5 (positions 1 and 4) removed, 7 and 8 added
    const edited = grown.filter((entry) => entry.id !== 2 && entry.id !== 5).concat([item(7), item(8)]);
    recordEdit(edited, grown, [1, 4]);
    const none = edited.concat([]);
    recordEdit(none, edited);
    expect(aligned(none, base)).toEqual([0, 2, 3, -1, -1, -1]);
    expect(aligned(edited, grown)).toEqual([0, 2, 3, 5, -1, -1]);
    expect(aligned(base, base)).toEqual([0, 1, 2, 3, 4]);
    // the same entries, but no record says so
    expect(aligned(base.concat([item(6)]), base)).toBeNull();
    expect(aligned(base, grown)).toBeNull();
  });

  it('should not take a patch for an edit', () => {
    const grown = base.concat([item(6)]);
    recordEdit(grown, base);
    const patched = grown.slice();
    patched[0] = item(1, 'new');
    recordItemsPatch(patched, grown, [0]);
    expect(aligned(patched, base)).toBeNull();
  });

  it('should name the positions patched on either side of a growth, and none for the growth itself', () => {
    const first = base.slice();
    first[1] = item(2, 'first');
    recordItemsPatch(first, base, [1]);
    const grown = first.concat([item(6), item(7)]);
    recordEdit(grown, first);
    const last = grown.slice();
    last[5] = item(6, 'last');
    recordItemsPatch(last, grown, [5]);
    expect(patchedSince(last, base)).toEqual([5, 1]);
    expect(patchedSince(grown, first)).toEqual([]);
    expect(patchedSince(last, base.slice())).toBeNull();
  });

  it('should not name patched positions across an edit that removed entries', () => {
    const removed = base.filter((entry) => entry.id !== 1);
    recordEdit(removed, base, [0]);
    expect(patchedSince(removed, base)).toBeNull();
  });

  it('should let changedInPlace follow a growth by none', () => {
    const index = indexItems(base);
    const same = base.concat([]);
    recordEdit(same, base);
    const items = same.slice();
    items[2] = item(3, 'new');
    items[0] = item(1, 'unrecorded');
    recordItemsPatch(items, same, [2]);
    // the records lead back to the memo's items: only the position they name is looked at
    expect(changedInPlace(items, base, index)!.list).toEqual([2]);
  });
});
