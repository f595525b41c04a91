import { createHash } from 'node:crypto';

import { CHARGE_RELEVANT_STATUSES, computeFrontier, isTerminalStatus } from '../../libs/core/src';
import { buildProjectGraph } from '../../apps/daemon/src/frontier/read-path/frontier-graph';
import { BlockerRow, CandidateRow, EdgeRow } from '../../apps/daemon/src/frontier/read-path/frontier.repository';
import { toFrontierResultWire } from '../../apps/daemon/src/frontier/wire/frontier.mapper';
import { parseWorkflowStages } from '../../apps/daemon/src/frontier/read-path/workflow-stages';
import { generateBacklog } from './generate';

// In-process profile of the frontier's steps on a generated backlog (no database): graph build, core, wire mapping,
// JSON, digest. `node --cpu-prof -r ts-node/register/transpile-only bench/frontier/profile.ts 100000`.
// the issue workflow's stages: the charge-relevant ones, then the terminal ones
const STAGES = [...CHARGE_RELEVANT_STATUSES, 'done', 'cancelled', 'stopped', 'failed'];

export function generatedRows(n: number) {
  const { items, edges } = generateBacklog(n, 42);
  const workflows = new Map([
    [1, parseWorkflowStages(1, 'issue', { stages: STAGES.map((id) => ({ id })) })],
    [2, parseWorkflowStages(2, 'epic', { stages: STAGES.map((id) => ({ id })) })],
  ]);
  const candidates: CandidateRow[] = [];
  const outside: BlockerRow[] = [];
  items.forEach((spec, i) => {
    const row = {
      id: i + 1,
      seq: i + 1,
      title: spec.title ?? `Item ${i + 1}`,
      status: spec.status ?? 'planned',
      priority: spec.priority ?? 'medium',
      workflow_id: spec.workflow ?? 'issue',
      workflow_version_id: spec.workflow === 'epic' ? 2 : 1,
      frozen: spec.frozen ? 1 : 0,
      blocked: spec.blocked ? 1 : 0,
      blocked_reason: spec.blockedReason ?? null,
      created_at: (spec.createdAt ?? '2025-01-01T00:00:00.000Z').slice(0, 23),
      merged_at: null,
    };
    if (isTerminalStatus(row.status)) outside.push({ ...row, prefix: 'BN', project: 'bench' });
    else candidates.push(row);
  });
  const isCandidate = new Set(candidates.map((c) => c.id));
  const edgeRows: EdgeRow[] = edges
    .map((e, k) => ({
      id: k + 1,
      blocker: e.blocker + 1,
      dependent: e.dependent + 1,
      satisfaction: e.satisfaction,
      g: 'activation',
      r: '',
    }))
    .filter((e) => isCandidate.has(e.dependent));
  const referenced = new Set(edgeRows.map((e) => e.blocker));
  return {
    project: { id: 'bench', public_item_prefix: 'BN', policy: { wip_cap: 30 } } as never,
    candidates,
    edges: edgeRows,
    outside: outside.filter((o) => referenced.has(o.id)),
    workflows,
    runs: [],
    environments: [],
  };
}

function time<T>(label: string, work: () => T, times: number[]): T {
  const t0 = performance.now();
  const value = work();
  times.push(performance.now() - t0);
  void label;
  return value;
}

if (require.main === module) {
  const n = Number(process.argv[2] ?? 100_000);
  const rounds = Number(process.argv[3] ?? 8);
  const rows = generatedRows(n);
  const t: Record<string, number[]> = { graph: [], core: [], wire: [], json: [], digest: [] };
  for (let r = 0; r < rounds; r++) {
    const graph = time('graph', () => buildProjectGraph(rows), t.graph);
    const input = { items: graph.items, edges: graph.activation, blockerFacts: graph.facts, wipCap: 30 };
    const computation = time('core', () => computeFrontier(input), t.core);
    const wire = time('wire', () => toFrontierResultWire(computation, graph.refOf), t.wire);
    const json = time('json', () => JSON.stringify(wire), t.json);
    time('digest', () => createHash('sha256').update(json, 'utf8').digest('base64url'), t.digest);
  }
  const med = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)].toFixed(1);
  process.stdout.write(`${JSON.stringify(Object.fromEntries(Object.entries(t).map(([k, v]) => [k, med(v)])))}\n`);
}
