import { setImmediate as nextTurn } from 'node:timers/promises';

import { CHARGE_RELEVANT_STATUSES, computeFrontier, FrontierMemo } from '@app/core';

import { buildProjectGraph, GraphReuse } from './frontier-graph';
import { createGraphState, stateRows } from './frontier-graph-state';
import { BlockerRow, CandidateRow, EdgeRow, ProjectRow } from './frontier.repository';
import { parseWorkflowStages } from './workflow-stages';

// V8 runs a function's first long loops in its slower tiers, so the first read of a large project is slower. Once
// the daemon is up the read path runs a few times on a synthetic backlog, one step per event-loop turn, touching no
// database, so a project's first real read finds it optimized (measurements: bench/README.md).

const STAGES = [...CHARGE_RELEVANT_STATUSES, 'done', 'cancelled'];
const PRIORITIES = ['high', 'medium', 'medium', 'low'];
const FORMS = ['status:done', 'status:done', 'status:done', 'status:implemented', 'fact:merged'];
const PROJECT: ProjectRow = { id: 'warm-up', name: 'warm-up', public_item_prefix: 'WU', policy: {} };

// Shaped like a real backlog (the bench's generator, simplified).
export function syntheticRows(n: number): { candidates: CandidateRow[]; edges: EdgeRow[]; outside: BlockerRow[] } {
  let seed = 42;
  const random = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x80000000;
  };
  const candidates: CandidateRow[] = [];
  const outside: BlockerRow[] = [];
  const open = new Uint8Array(n + 1);
  for (let id = 1; id <= n; id++) {
    const done = random() < 0.33;
    const status = done ? 'done' : CHARGE_RELEVANT_STATUSES[Math.floor(random() * CHARGE_RELEVANT_STATUSES.length)];
    const createdAt = new Date(Date.UTC(2025, 0, 1) + id * 60_000).toISOString().slice(0, 23);
    if (done) {
      outside.push({
        id,
        prefix: 'WU',
        seq: id,
        title: `Item ${id}`,
        status,
        merged_at: createdAt,
        project: PROJECT.id,
        workflow_id: 'issue',
        workflow_version_id: 1,
      });
      continue;
    }
    open[id] = 1;
    const blocked = random() < 0.02 ? 1 : 0;
    candidates.push({
      id,
      seq: id,
      title: `Item ${id}`,
      status,
      priority: PRIORITIES[Math.floor(random() * PRIORITIES.length)],
      workflow_id: 'issue',
      workflow_version_id: 1,
      frozen: random() < 0.02 ? 1 : 0,
      blocked,
      blocked_reason: blocked ? 'waiting' : null,
      created_at: createdAt,
      merged_at: null,
    });
  }
  const edges: EdgeRow[] = [];
  for (let dependent = 2; dependent <= n; dependent++) {
    if (open[dependent] === 0) continue;
    for (let k = random() < 0.6 ? 2 : 1; k > 0; k--) {
      const blocker = Math.max(1, dependent - 1 - Math.floor(random() * 200));
      edges.push({
        id: edges.length + 1,
        blocker,
        dependent,
        satisfaction: FORMS[Math.floor(random() * FORMS.length)],
        g: 'activation',
        r: '',
      });
    }
  }
  const referenced = new Set(edges.map((e) => e.blocker));
  return { candidates, edges, outside: outside.filter((row) => referenced.has(row.id)) };
}

export async function warmUpFrontier(n = 20_000, rounds = 4): Promise<void> {
  const workflows = new Map([[1, parseWorkflowStages(1, 'issue', { stages: STAGES.map((id) => ({ id })) })]]);
  const rows = syntheticRows(n);
  for (let round = 0; round < rounds; round++) {
    await nextTurn();
    const state = createGraphState(PROJECT, ['activation'], '0', rows);
    const graph = buildProjectGraph(
      { project: PROJECT, ...stateRows(state), workflows, runs: [], environments: [] },
      new GraphReuse(),
    );
    await nextTurn();
    const memo = new FrontierMemo();
    const input = { items: graph.items, edges: graph.activation, blockerFacts: graph.facts, wipCap: 30 };
    computeFrontier(input, memo);
    await nextTurn();
    const items = graph.items.slice();
    items[round] = { ...items[round], priority: items[round].priority === 'high' ? 'low' : 'high' };
    computeFrontier({ ...input, items }, memo);
  }
}
