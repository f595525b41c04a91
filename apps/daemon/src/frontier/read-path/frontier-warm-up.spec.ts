import { computeFrontier } from '@app/core';

import { buildProjectGraph } from './frontier-graph';
import { syntheticRows, warmUpFrontier } from './frontier-warm-up';
import { parseWorkflowStages } from './workflow-stages';

describe('frontier warm-up', () => {
  it('builds a backlog that takes every branch of the read path: runnable, blocked, frozen, outside blockers', () => {
    const rows = syntheticRows(3000);
    const ids = new Set([...rows.candidates, ...rows.outside].map((row) => row.id));
    expect(rows.edges.every((edge) => ids.has(edge.blocker) && ids.has(edge.dependent))).toBe(true);
    const workflows = new Map([[1, parseWorkflowStages(1, 'issue', { stages: [{ id: 'planned' }, { id: 'done' }] })]]);
    const graph = buildProjectGraph({
      project: { id: 'warm-up', name: 'warm-up', public_item_prefix: 'WU', policy: {} },
      ...rows,
      workflows,
      runs: [],
      environments: [],
    });
    const result = computeFrontier({
      items: graph.items,
      edges: graph.activation,
      blockerFacts: graph.facts,
      wipCap: 3,
    });
    expect(result.runnable.length).toBeGreaterThan(100);
    expect(result.blocked.length).toBeGreaterThan(100);
    expect(result.frozen.length).toBeGreaterThan(0);
    expect(result.blocked.some((item) => item.blocked_reasons.some((r) => r.startsWith('WU-')))).toBe(true);
    expect(rows.outside.length).toBeGreaterThan(100);
  });

  it('runs to the end, yielding to the event loop between steps', async () => {
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    try {
      await warmUpFrontier(2000, 2);
    } finally {
      clearInterval(ticker);
    }
    expect(turns).toBeGreaterThan(0);
  });
});
