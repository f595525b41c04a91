import { ADAPTER_CATEGORIES, AdapterCategory, defaultStageAdapter } from '@app/core';

export interface StageBinding {
  id: string;
  adapter: AdapterCategory;
  // the registered skill's entrypoint template, e.g. `/svc conduct {ref}`; null when the stage binds none
  entrypoint: string | null;
  lane: string | null;
  terminal: boolean;
}

export interface WorkflowStages {
  versionId: number;
  workflowId: string;
  isEpic: boolean;
  order: readonly string[];
  stages: ReadonlyMap<string, StageBinding>;
}

const ADAPTERS = new Set<string>(ADAPTER_CATEGORIES);

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

function stringOf(value: unknown): string | null {
  return typeof value === 'string' && value.trim().length > 0 ? value.trim() : null;
}

// Stored JSON is read defensively: a malformed stage is skipped, never fatal to a frontier read.
export function parseWorkflowStages(versionId: number, workflowId: string, definition: unknown): WorkflowStages {
  const root = asRecord(definition) ?? {};
  const isEpic = workflowId === 'epic' || root.kind === 'epic' || root.item_kind === 'epic';
  const order: string[] = [];
  const stages = new Map<string, StageBinding>();
  const list = Array.isArray(root.stages) ? root.stages : [];
  for (const raw of list) {
    const stage = asRecord(raw);
    const id = stage ? stringOf(stage.id) : typeof raw === 'string' ? raw : null;
    if (!id || stages.has(id)) continue;
    const binding = asRecord(stage?.binding) ?? asRecord(stage?.skill) ?? {};
    const declared = stringOf(stage?.adapter) ?? stringOf(binding.adapter);
    stages.set(id, {
      id,
      adapter: declared && ADAPTERS.has(declared) ? (declared as AdapterCategory) : defaultStageAdapter(id, isEpic),
      entrypoint: stringOf(stage?.entrypoint) ?? stringOf(binding.entrypoint),
      lane: stringOf(stage?.lane) ?? stringOf(binding.lane),
      terminal: stage?.terminal === true,
    });
    order.push(id);
  }
  return { versionId, workflowId, isEpic, order, stages };
}

export function stageAdapterOf(workflow: WorkflowStages | undefined, status: string, isEpic: boolean): AdapterCategory {
  return workflow?.stages.get(status)?.adapter ?? defaultStageAdapter(status, isEpic);
}

// Statuses outside the pinned definition rank last (-1).
export function lifecycleRankOf(workflow: WorkflowStages | undefined, status: string): number {
  return workflow ? workflow.order.indexOf(status) : -1;
}

// The server renders the dispatch truth: the stage binding's template with the true public ref.
export function renderEntrypoint(template: string | null, values: { ref: string; project: string }): string | null {
  if (!template) return null;
  return template.replace(/\{ref\}/g, values.ref).replace(/\{project\}/g, values.project);
}
