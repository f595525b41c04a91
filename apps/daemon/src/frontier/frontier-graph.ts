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

export function buildProjectGraph(rows: GraphRows): ProjectGraph {
  const { project, workflows } = rows;
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
  const refs = new Map<number, string>();
  const projectEnvironments = registered.get(project.id) ?? NO_ENVIRONMENTS;
  for (let i = 0; i < rows.candidates.length; i++) {
    const row = rows.candidates[i];
    const workflow = workflows.get(row.workflow_version_id);
    const isEpic = workflow?.isEpic ?? row.workflow_id === 'epic';
    const ref = prefix + row.seq;
    refs.set(row.id, ref);
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
    facts.set(row.id, {
      status: row.status,
      mergedAt: row.merged_at,
      deployedEnvironments: deployed.get(row.id) ?? NO_ENVIRONMENTS,
      registeredEnvironments: projectEnvironments,
      stageOrder: workflow?.order ?? EMPTY_ORDER,
      ref,
      title: row.title,
    });
  }
  const blockerProjects = new Map<number, string>();
  for (const row of rows.outside) {
    const ref = `${row.prefix}-${row.seq}`;
    refs.set(row.id, ref);
    blockerProjects.set(row.id, row.project);
    facts.set(row.id, {
      status: row.status,
      mergedAt: row.merged_at,
      deployedEnvironments: deployed.get(row.id) ?? NO_ENVIRONMENTS,
      registeredEnvironments: registered.get(row.project) ?? NO_ENVIRONMENTS,
      stageOrder: workflows.get(row.workflow_version_id)?.order ?? EMPTY_ORDER,
      ref,
      title: row.title,
    });
  }
  const activation: FrontierEdge[] = [];
  for (const edge of rows.edges) {
    if (edge.g === 'activation') activation.push({ blocker: edge.b, dependent: edge.d, satisfaction: edge.s });
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
    refOf: (id) => refs.get(id),
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
