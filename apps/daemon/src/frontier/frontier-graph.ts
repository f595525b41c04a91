import { BlockerFacts, DeploymentHalt, FrontierEdge, FrontierInputItem, isTerminalStatus } from '@app/core';

import { BlockerRow, CandidateRow, EdgeRow, EnvironmentRow, ProjectRow, RunRow } from './frontier.repository';
import { lifecycleRankOf, stageAdapterOf, WorkflowStages } from './workflow-stages';

// One project's frontier inputs, in the core's in-process shapes (internal ids; refs alongside).
export interface ProjectGraph {
  project: ProjectRow;
  items: FrontierInputItem[];
  // activation edges (the frontier computation's input)
  activation: FrontierEdge[];
  // every loaded edge with its gate point and rationale (frontier.list)
  edges: EdgeRow[];
  facts: Map<number, BlockerFacts>;
  workflows: Map<number, WorkflowStages>;
  // environment name → registered for that project, with its delivery-flow reach
  environments: Map<string, Map<string, EnvironmentRow>>;
  runs: RunRow[];
  // item → its deployment pipeline halt (applied after compute_frontier by applyDeploymentHalts)
  halts: ReadonlyMap<number, DeploymentHalt>;
  // projects of blockers outside the candidate set
  blockerProjects: Map<number, string>;
  refOf: (id: number) => string | undefined;
}

const NO_ENVIRONMENTS: ReadonlySet<string> = new Set();
const EMPTY_ORDER: readonly string[] = [];

export function usesDeployedForm(edges: readonly EdgeRow[]): boolean {
  for (const edge of edges) if (edge.s.startsWith('fact:deployed:')) return true;
  return false;
}

export interface GraphRows {
  project: ProjectRow;
  candidates: CandidateRow[];
  edges: EdgeRow[];
  outside: BlockerRow[];
  workflows: Map<number, WorkflowStages>;
  runs: RunRow[];
  environments: EnvironmentRow[];
  halts?: ReadonlyMap<number, DeploymentHalt>;
}

// What one build derived from each row object, for the next build of the same project's state: rows a refresh left
// untouched keep their object, so their input item, facts and activation edge are taken over instead of rebuilt.
// Facts also depend on the delivery rows, so they are reused only while those are the same arrays.
export class GraphReuse {
  items = new WeakMap<CandidateRow, FrontierInputItem>();
  facts = new WeakMap<CandidateRow | BlockerRow, BlockerFacts>();
  edges = new WeakMap<EdgeRow, FrontierEdge>();
  runs: RunRow[] | null = null;
  environments: EnvironmentRow[] | null = null;
}

const NO_REUSE = {
  items: { get: () => undefined, set: () => undefined },
  facts: { get: () => undefined, set: () => undefined },
  edges: { get: () => undefined, set: () => undefined },
};

export function buildProjectGraph(rows: GraphRows, reuse?: GraphReuse): ProjectGraph {
  const { project, workflows } = rows;
  const sameDelivery =
    reuse !== undefined &&
    ((reuse.runs === rows.runs && reuse.environments === rows.environments) ||
      (reuse.runs?.length === 0 &&
        rows.runs.length === 0 &&
        reuse.environments?.length === 0 &&
        rows.environments.length === 0));
  const itemCache = reuse?.items ?? NO_REUSE.items;
  const factCache = sameDelivery ? reuse.facts : NO_REUSE.facts;
  const edgeCache = reuse?.edges ?? NO_REUSE.edges;
  if (reuse !== undefined) {
    if (!sameDelivery) reuse.facts = new WeakMap();
    reuse.runs = rows.runs;
    reuse.environments = rows.environments;
  }
  const factTarget = reuse?.facts ?? NO_REUSE.facts;
  const prefix = `${project.public_item_prefix}-`;
  const registered = new Map<string, Set<string>>();
  const environments = new Map<string, Map<string, EnvironmentRow>>();
  for (const env of rows.environments) {
    let names = registered.get(env.project);
    if (!names) registered.set(env.project, (names = new Set()));
    names.add(env.name);
    let byName = environments.get(env.project);
    if (!byName) environments.set(env.project, (byName = new Map()));
    byName.set(env.name, env);
  }
  const deployed = new Map<number, Set<string>>();
  for (const run of rows.runs) {
    if (run.status !== 'succeeded') continue;
    let set = deployed.get(run.item_id);
    if (!set) deployed.set(run.item_id, (set = new Set()));
    set.add(run.environment);
  }

  const items: FrontierInputItem[] = new Array<FrontierInputItem>(rows.candidates.length);
  const facts = new Map<number, BlockerFacts>();
  const projectEnvironments = registered.get(project.id) ?? NO_ENVIRONMENTS;
  for (let i = 0; i < rows.candidates.length; i++) {
    const row = rows.candidates[i];
    const known = itemCache.get(row);
    const knownFacts = factCache.get(row);
    if (known !== undefined && knownFacts !== undefined) {
      items[i] = known;
      facts.set(row.id, knownFacts);
      continue;
    }
    const workflow = workflows.get(row.workflow_version_id);
    const isEpic = workflow?.isEpic ?? row.workflow_id === 'epic';
    const ref = prefix + row.seq;
    items[i] = {
      id: row.id,
      ref,
      title: row.title,
      status: row.status,
      priority: row.priority,
      project: project.id,
      workflowId: row.workflow_id,
      workflowVersionId: row.workflow_version_id,
      frozen: row.frozen === 1,
      blocked: row.blocked === 1,
      blockedReason: row.blocked_reason,
      createdAt: row.created_at,
      stageAdapter: stageAdapterOf(workflow, row.status, isEpic),
      lifecycleRank: lifecycleRankOf(workflow, row.status),
      isEpic,
    };
    itemCache.set(row, items[i]);
    const rowFacts: BlockerFacts = {
      status: row.status,
      mergedAt: row.merged_at,
      deployedEnvironments: deployed.get(row.id) ?? NO_ENVIRONMENTS,
      registeredEnvironments: projectEnvironments,
      stageOrder: workflow?.order ?? EMPTY_ORDER,
      ref,
      title: row.title,
    };
    factTarget.set(row, rowFacts);
    facts.set(row.id, rowFacts);
  }
  const blockerProjects = new Map<number, string>();
  for (const row of rows.outside) {
    blockerProjects.set(row.id, row.project);
    const knownFacts = factCache.get(row);
    if (knownFacts !== undefined) {
      facts.set(row.id, knownFacts);
      continue;
    }
    const ref = `${row.prefix}-${row.seq}`;
    const rowFacts: BlockerFacts = {
      status: row.status,
      mergedAt: row.merged_at,
      deployedEnvironments: deployed.get(row.id) ?? NO_ENVIRONMENTS,
      registeredEnvironments: registered.get(row.project) ?? NO_ENVIRONMENTS,
      stageOrder: workflows.get(row.workflow_version_id)?.order ?? EMPTY_ORDER,
      ref,
      title: row.title,
    };
    factTarget.set(row, rowFacts);
    facts.set(row.id, rowFacts);
  }
  const activation: FrontierEdge[] = [];
  for (const edge of rows.edges) {
    if (edge.g !== 'activation') continue;
    let known = edgeCache.get(edge);
    if (known === undefined) {
      known = { blocker: edge.b, dependent: edge.d, satisfaction: edge.s };
      edgeCache.set(edge, known);
    }
    activation.push(known);
  }
  return {
    project,
    items,
    activation,
    edges: rows.edges,
    facts,
    workflows,
    environments,
    runs: rows.runs,
    halts: rows.halts ?? new Map(),
    blockerProjects,
    // every candidate and outside blocker has facts carrying its ref
    refOf: (id) => facts.get(id)?.ref,
  };
}

export type DeliveryState = 'live' | 'deploying' | 'not deployed' | 'unregistered';

const IN_FLIGHT = new Set(['pending', 'running', 'halted']);

// The delivery state of one blocker in one environment, for a fact:deployed edge.
export function deliveryState(
  graph: ProjectGraph,
  blocker: number,
  environment: string,
): { delivery_state: DeliveryState; in_delivery_flow: boolean } {
  const facts = graph.facts.get(blocker);
  const blockerProject = graph.blockerProjects.get(blocker) ?? graph.project.id;
  const env = graph.environments.get(blockerProject)?.get(environment);
  const inFlow = env?.in_flow ?? false;
  if (!env) return { delivery_state: 'unregistered', in_delivery_flow: false };
  if (facts?.deployedEnvironments.has(environment)) return { delivery_state: 'live', in_delivery_flow: inFlow };
  const deploying = graph.runs.some(
    (r) => r.item_id === blocker && r.environment === environment && IN_FLIGHT.has(r.status),
  );
  return { delivery_state: deploying ? 'deploying' : 'not deployed', in_delivery_flow: inFlow };
}

export function terminalBlocker(graph: ProjectGraph, blocker: number): boolean {
  return isTerminalStatus(graph.facts.get(blocker)?.status ?? null);
}
