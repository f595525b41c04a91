import type { SvcApi } from '@app/client';
import type { FrontierWindowWire } from '@app/contracts';

import type { Action } from '../state/actions';
import { reduce } from '../state/reduce';
import { frontierWindow, item, NOW, project } from '../testing/fixtures';
import { frontierRowAt, indexOfKey, rowCount } from '../state/selectors';
import { initialState, State } from '../state/state';
import { LiveFrontier, WINDOW_MARGIN, WINDOW_ROWS, wantedWindow } from './frontier-live';

// A project too large to hold: the window the screen wants (list, filter, sort, rows around the cursor), and the
// selectors reading positions in the whole list from the window held.

const TOTAL = 1_000;

function holding(offset: number, cursor: number, patch: Partial<State> = {}, held = WINDOW_ROWS): State {
  const rows = Array.from({ length: held }, (_, i) => item(offset + i + 1));
  const s = initialState({ project: 'atlas', now: NOW });
  return {
    ...s,
    frontier: frontierWindow('runnable', rows, {
      offset,
      total: TOTAL,
      totals: { runnable: TOTAL, blocked: 7, frozen: 0 },
    }),
    cursors: { ...s.cursors, runnable: { index: cursor, key: null } },
    ...patch,
  };
}

describe(wantedWindow.name, () => {
  it('should keep the window held while the cursor is well inside it', () => {
    expect(wantedWindow(holding(0, 0), 'atlas')).toEqual({
      project: 'atlas',
      list: 'runnable',
      offset: 0,
      limit: WINDOW_ROWS,
      filter: '',
      sort: 'rank',
      desc: false,
    });
    expect(wantedWindow(holding(0, WINDOW_ROWS - WINDOW_MARGIN - 1), 'atlas').offset).toBe(0);
    expect(wantedWindow(holding(400, 400 + WINDOW_MARGIN), 'atlas').offset).toBe(400);
  });

  it('should read a window around the cursor near either edge, or past the rows held', () => {
    const low = WINDOW_ROWS - WINDOW_MARGIN;
    expect(wantedWindow(holding(0, low), 'atlas').offset).toBe(low - WINDOW_ROWS / 2);
    expect(wantedWindow(holding(400, 420), 'atlas').offset).toBe(420 - WINDOW_ROWS / 2);
    expect(wantedWindow(holding(0, TOTAL - 1), 'atlas').offset).toBe(TOTAL - 1 - WINDOW_ROWS / 2);
    // the last rows held are the list's last: the cursor may go to the end
    expect(wantedWindow(holding(TOTAL - WINDOW_ROWS, TOTAL - 1), 'atlas').offset).toBe(TOTAL - WINDOW_ROWS);
  });

  it('should hold four pages of a tall list, and read again a page before its edge', () => {
    const tall = (offset: number, cursor: number) => holding(offset, cursor, { pageSize: 120 }, 480);
    expect(wantedWindow(tall(0, 0), 'atlas').limit).toBe(480);
    expect(wantedWindow(holding(0, 0), 'atlas').limit).toBe(WINDOW_ROWS);
    // 480 rows held from 400: the cursor may come within a page (120 rows) of either edge
    expect(wantedWindow(tall(400, 520), 'atlas').offset).toBe(400);
    expect(wantedWindow(tall(400, 759), 'atlas').offset).toBe(400);
    expect(wantedWindow(tall(400, 519), 'atlas').offset).toBe(519 - 240);
    expect(wantedWindow(tall(400, 760), 'atlas').offset).toBe(760 - 240);
  });

  it('should follow the tab, the filter and the sort', () => {
    const s = holding(0, 10, { filter: '  pri:high  ', sort: 'age', sortDesc: true });
    expect(wantedWindow(s, 'atlas')).toMatchObject({ list: 'runnable', filter: 'pri:high', sort: 'age', desc: true });
    expect(wantedWindow({ ...holding(0, 10), tab: 'blocked' }, 'atlas')).toMatchObject({ list: 'blocked', offset: 0 });
    // a tab that is no list keeps the window's list (its lengths stay current)
    expect(wantedWindow({ ...holding(0, 10), tab: 'events' }, 'atlas').list).toBe('runnable');
  });
});

describe('the selectors over a window', () => {
  it('should count the whole list, and find rows at their place in it', () => {
    const s = holding(400, 420);
    expect(rowCount(s, 'runnable')).toBe(TOTAL);
    expect(rowCount(s, 'blocked')).toBe(7);
    expect(frontierRowAt(s, 'runnable', 420)?.item_id).toBe('ATL-421');
    expect(frontierRowAt(s, 'runnable', 399)).toBeNull();
    expect(frontierRowAt(s, 'runnable', 400 + WINDOW_ROWS)).toBeNull();
    expect(frontierRowAt(s, 'blocked', 0)).toBeNull();
    expect(indexOfKey(s, 'runnable', 'ATL-401')).toBe(400);
    expect(indexOfKey(s, 'runnable', 'ATL-1')).toBe(-1);
  });
});

describe(LiveFrontier.name, () => {
  // a daemon whose first window answers when told to
  function setup(totals: { runnable: number; blocked: number; frozen: number }) {
    let answerFirst: (w: FrontierWindowWire) => void = () => undefined;
    const first = new Promise<FrontierWindowWire>((resolve) => (answerFirst = resolve));
    const rows = [item(1), item(2)];
    const api = {
      frontierWindow: jest
        .fn()
        .mockReturnValueOnce(first)
        .mockResolvedValue(frontierWindow('runnable', rows, { totals, total: totals.runnable })),
      frontier: jest.fn().mockResolvedValue({ notModified: false, body: { runnable: rows }, etag: '"a"' }),
      frontierSince: jest.fn().mockResolvedValue({ kind: 'not_modified' }),
    };
    let state = reduce(initialState({ project: 'atlas', now: NOW }), {
      type: 'projects_loaded',
      projects: [project('atlas')],
    });
    const live = new LiveFrontier(
      api as unknown as SvcApi,
      () => state,
      (action: Action) => (state = reduce(state, action)),
      () => undefined,
      null,
      100,
    );
    const answer = () => answerFirst(frontierWindow('runnable', rows, { totals, total: totals.runnable }));
    return { api, live, answer, state: () => state };
  }

  it('should hold a project above the threshold as windows, a notice before its first screen included', async () => {
    const { api, live, answer, state } = setup({ runnable: 150, blocked: 0, frozen: 0 });
    const synced = live.sync();
    // a change elsewhere before the first screen came: it waits for the first screen to say how the project is held
    const noticed = live.notice('"b"');
    answer();
    await Promise.all([synced, noticed]);
    expect(api.frontier).not.toHaveBeenCalled();
    expect(api.frontierWindow.mock.calls.length).toBeGreaterThanOrEqual(2);
    expect(rowCount(state(), 'runnable')).toBe(150);
    expect(live.stats).toMatchObject({ deltas: 0 });
  });

  it('should read the whole answer of a project at or below the threshold, once', async () => {
    const { api, live, answer } = setup({ runnable: 100, blocked: 0, frozen: 0 });
    const synced = live.sync();
    const noticed = live.notice(null);
    answer();
    await Promise.all([synced, noticed]);
    // the notice asks what changed since the answer read, not for the whole answer a second time
    expect(api.frontier).toHaveBeenCalledTimes(1);
    expect(api.frontierSince).toHaveBeenCalledTimes(1);
    expect(api.frontierWindow).toHaveBeenCalledTimes(1);
  });
});
