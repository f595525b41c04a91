import type { DeploymentHaltWire, ItemProgressWire } from '../wire';

export interface PipelineStage {
  name: string;
  approval: boolean;
  capabilities: string[];
}

export interface Pipeline {
  flow: string;
  stages: PipelineStage[];
  deploy_stage: string | null;
  run_id: string | null;
  environment: string | null;
  current_stage: string | null;
  // 1-based position of the run in its stages, and their count ("2/3" on the wire)
  stage_index: number | null;
  stage_count: number | null;
  halt: DeploymentHaltWire | null;
}

// flow-stages.ts in the daemon writes these.
export function flowStages(stages: unknown): PipelineStage[] {
  if (!Array.isArray(stages)) return [];
  return stages.map((s: unknown) => {
    if (typeof s === 'string') return { name: s, approval: false, capabilities: [] };
    const o = (s ?? {}) as { name?: unknown; environment?: unknown; approval?: unknown; capabilities?: unknown };
    const name = typeof o.name === 'string' ? o.name : typeof o.environment === 'string' ? o.environment : '?';
    const capabilities = Array.isArray(o.capabilities) ? o.capabilities.filter((c) => typeof c === 'string') : [];
    return { name, approval: !!o.approval, capabilities };
  });
}

export function pipelineOf(
  flow: string,
  deployStage: string | null,
  progress: ItemProgressWire | null,
  stages: unknown,
): Pipeline {
  const [index, count] = (progress?.stage_progress ?? '').split('/').map((n) => Number.parseInt(n, 10));
  return {
    flow: progress?.flow_name ?? flow,
    stages: flowStages(stages),
    deploy_stage: deployStage,
    run_id: progress?.run_id ?? null,
    environment: progress?.target_environment ?? null,
    current_stage: progress?.current_stage ?? null,
    stage_index: Number.isFinite(index) ? index : null,
    stage_count: Number.isFinite(count) ? count : null,
    halt: progress?.halt ?? null,
  };
}
