import { frontier, item, NOW, project } from '../testing/fixtures';
import type { ClaimHolder } from '../wire';
import type { Action } from './actions';
import { parseFilter } from '@app/contracts';
import { reduce } from './reduce';
import { bucketIndexAt, frontierRowAt, rowCount, selectedItem } from './selectors';
import { initialState, State } from './state';
import { paletteOptions } from './triage';

// `:sort <key>` and `:filter pri:high status:planned @me`.

const key = (action: Extract<Action, { type: 'key' }>['action']): Action => ({ type: 'key', action });
const type = (text: string): Action[] => [...text].map((ch) => ({ type: 'input', ch }));
const run = (state: State, ...actions: (Action | Action[])[]) => actions.flat().reduce(reduce, state);
const palette = (s: State, line: string) => run(s, key('palette'), type(line), key('picker_choose'));
const refs = (s: State) =>
  Array.from({ length: rowCount(s, 'runnable') }, (_, i) => frontierRowAt(s, 'runnable', i)!.item_id);

const hour = 3_600_000;
function loaded(): State {
  const s = run(
    initialState({ now: NOW }),
    { type: 'projects_loaded', projects: [project('atlas')] },
    { type: 'actor', name: 'ana' },
    {
      type: 'frontier_loaded',
      project: 'atlas',
      frontier: frontier([
        item(1, { priority: 'medium', status: 'in_progress', created_at: new Date(NOW - 1 * hour).toISOString() }),
        item(2, { priority: 'high', status: 'planned', created_at: new Date(NOW - 5 * hour).toISOString() }),
        item(3, { priority: 'low', status: 'planned', created_at: new Date(NOW - 9 * hour).toISOString() }),
        item(4, {
          priority: 'high',
          status: 'in_progress',
          title: 'Billing export',
          created_at: new Date(NOW - 2 * hour).toISOString(),
        }),
      ]),
    },
  );
  const claim = (ref: string, actor: string) => ({ item_id: ref, actor }) as ClaimHolder;
  return { ...s, claims: { 'ATL-2': claim('ATL-2', 'ana'), 'ATL-4': claim('ATL-4', 'bo') } };
}

describe(':sort and :filter', () => {
  it('parses the structured words', () => {
    expect(parseFilter('pri:hi status:planned @me export')).toEqual({
      words: ['export'],
      priorities: ['high'],
      statuses: ['planned'],
      me: true,
      plain: false,
    });
    expect(parseFilter('billing').plain).toBe(true);
  });

  it('sorts the lists, keeps the selected item selected and the rank column the frontier rank', () => {
    let s = loaded();
    expect(refs(s)).toEqual(['ATL-1', 'ATL-2', 'ATL-3', 'ATL-4']);
    s = palette(s, 'sort age');
    expect(s.sort).toBe('age');
    expect(refs(s)).toEqual(['ATL-3', 'ATL-2', 'ATL-4', 'ATL-1']);
    expect(selectedItem(s)?.item_id).toBe('ATL-1');
    // ATL-3 is shown first and keeps rank 3
    expect(bucketIndexAt(s, 'runnable', 0) + 1).toBe(3);
    expect(s.status?.text).toMatch(/sorted by age/);
    expect(refs(palette(s, 'sort pri'))).toEqual(['ATL-2', 'ATL-4', 'ATL-1', 'ATL-3']);
    expect(refs(palette(s, 'sort rank'))).toEqual(['ATL-1', 'ATL-2', 'ATL-3', 'ATL-4']);
    expect(palette(s, 'sort sideways').status?.text).toMatch(/sort by one of/);
    expect(paletteOptions(s, 'sort a').map((o) => o.value)).toEqual(['sort age']);
  });

  it('filters by priority, status, @me and words, through the same filter as /', () => {
    const s = loaded();
    expect(refs(palette(s, 'filter pri:high'))).toEqual(['ATL-2', 'ATL-4']);
    expect(refs(palette(s, 'filter pri:high status:planned'))).toEqual(['ATL-2']);
    expect(refs(palette(s, 'filter @me'))).toEqual(['ATL-2']);
    expect(refs(palette(s, 'filter pri:high billing'))).toEqual(['ATL-4']);
    const f = palette(s, 'filter pri:high');
    expect(f.filter).toBe('pri:high');
    // with a sort at once; esc clears the filter as after /
    expect(refs(palette(f, 'sort age'))).toEqual(['ATL-2', 'ATL-4']);
    expect(refs(reduce(f, key('back')))).toHaveLength(4);
    expect(refs(run(s, key('filter_start'), type('status:in_prog')))).toEqual(['ATL-1', 'ATL-4']);
  });
});
