import fc from 'fast-check';

import type { FrontierItemWire, FrontierResultWire, FrontierWindowWire, SortKey } from '@app/contracts';
import { SORT_KEYS } from '@app/contracts';

import { bodySource, frontierWindowJson, WindowQuery } from './frontier-window';

// Any window of any filtered, sorted list is the slice of that list a plain filter and sort give, each row with its
// rank; the eligible rows sent are the window's own.

const PRIORITIES = ['high', 'medium', 'low'];
const STATUSES = ['idea', 'planned', 'implementing'];

function row(n: number, r: { p: number; s: number; t: number; age: number; adapter: boolean }): FrontierItemWire {
  return {
    item_id: `WN-${n}`,
    title: `${['Ledger', 'Payment', 'payment retry'][r.t]} ${n}`,
    status: STATUSES[r.s],
    priority: PRIORITIES[r.p],
    project: 'win',
    workflow_id: 'default',
    adapter: r.adapter ? 'conduct' : 'refine',
    blocked_by: [],
    blocked_reasons: [],
    unblocks_count: n % 3,
    downstream_depth: n % 2,
    created_at: new Date(Date.UTC(2026, 0, 1) + r.age * 60_000).toISOString(),
  } as unknown as FrontierItemWire;
}

const rowSpec = fc.record({
  p: fc.nat(2),
  s: fc.nat(2),
  t: fc.nat(2),
  age: fc.nat(20),
  adapter: fc.boolean(),
});

const PRIORITY_RANK: Record<string, number> = { high: 0, medium: 1, low: 2 };

// the list query written plainly
function reference(rows: FrontierItemWire[], filter: string, sort: SortKey, desc: boolean): number[] {
  const words = filter
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w && !w.startsWith('pri:'));
  const pri = /pri:(\w+)/.exec(filter)?.[1];
  const keyOf = (r: FrontierItemWire): number | string => {
    if (sort === 'priority') return PRIORITY_RANK[r.priority];
    if (sort === 'age') return Date.parse(r.created_at);
    if (sort === 'title') return r.title.toLowerCase();
    if (sort === 'unblocks') return -r.unblocks_count;
    if (sort === 'depth') return -r.downstream_depth;
    if (sort === 'ref') return Number(r.item_id.split('-')[1]);
    if (sort === 'status')
      return STATUSES.indexOf(r.status) < 0 ? 99 : ['idea', 'planned', 'implementing'].indexOf(r.status);
    return 0;
  };
  const passing = rows
    .map((r, rank) => ({ r, rank }))
    .filter(({ r }) => words.every((w) => `${r.item_id}\u0000${r.title}`.toLowerCase().includes(w)))
    .filter(({ r }) => !pri || r.priority === pri);
  if (sort === 'rank') return (desc ? passing.reverse() : passing).map((p) => p.rank);
  const sign = desc ? -1 : 1;
  return passing
    .sort((a, b) => {
      const x = keyOf(a.r);
      const y = keyOf(b.r);
      return x < y ? -sign : x > y ? sign : a.rank - b.rank;
    })
    .map((p) => p.rank);
}

describe(frontierWindowJson.name, () => {
  it('should cut any window of the filtered, sorted list, with each row’s rank and only its eligible rows', () => {
    fc.assert(
      fc.property(
        fc.array(rowSpec, { maxLength: 40 }),
        fc.constantFrom('', 'payment', 'retry 1', 'pri:high', 'payment pri:low', 'wn-1'),
        fc.constantFrom(...SORT_KEYS.filter((k) => k !== 'status')),
        fc.boolean(),
        fc.nat(45),
        fc.integer({ min: 1, max: 50 }),
        (specs, filter, sort, desc, offset, limit) => {
          const runnable = specs.map((spec, n) => row(n + 1, spec));
          const eligible = runnable.filter((_, n) => n % 2 === 0);
          const body: FrontierResultWire = {
            runnable,
            blocked: [],
            frozen: [],
            wip_cap: 3,
            wip_active: 1,
            conduct_eligible: eligible,
          };
          const query: WindowQuery = { list: 'runnable', offset, limit, filter, sort, desc, mine: null };
          const w = JSON.parse(frontierWindowJson(bodySource(body, '"e"'), query).toString()) as FrontierWindowWire;
          const ranks = reference(runnable, filter, sort, desc);
          const from = Math.min(offset, ranks.length);
          expect(w.window.ranks).toEqual(ranks.slice(from, from + limit));
          expect(w.runnable).toEqual(w.window.ranks.map((rank) => runnable[rank]));
          expect(w.window).toMatchObject({ offset: from, total: ranks.length, etag: '"e"' });
          expect(w.conduct_eligible).toEqual(
            w.runnable.filter((r) => eligible.includes(runnable[Number(r.item_id.split('-')[1]) - 1])),
          );
          const conduct = (rows: FrontierItemWire[]) => rows.filter((r) => r.adapter === 'conduct').length;
          expect(w.window.wip_suppressed).toBe(Math.max(0, conduct(runnable) - conduct(eligible)));
        },
      ),
      { numRuns: 300 },
    );
  });
});
