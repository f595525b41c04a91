import { changedInPlace, indexItems, recordItemsPatch } from './item-index';
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
