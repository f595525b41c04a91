// Documented extension: a stage is a name or an object naming where a human approves and what the usher needs:
//   {"name": "production", "environment": "production", "approval": {"role": "admin"}, "capabilities": ["kubectl"]}
// `approval: true`: any member may approve; `name` defaults to `environment`.

export type ApprovalRole = 'member' | 'admin';

export interface FlowStage {
  name: string;
  environment: string | null;
  approval: { role: ApprovalRole } | null;
  capabilities: string[];
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const CAPABILITY = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$/;
const STAGE_KEYS = new Set(['name', 'environment', 'approval', 'capabilities']);

export function flowStagesProblem(stages: unknown): string | null {
  if (!Array.isArray(stages)) return 'stages must be an array';
  if (stages.length > 100) return 'a flow has at most 100 stages';
  const seen = new Set<string>();
  for (const [i, stage] of stages.entries()) {
    const at = `stages[${i}]`;
    let name: unknown = stage;
    if (typeof stage === 'object' && stage !== null && !Array.isArray(stage)) {
      const record = stage as Record<string, unknown>;
      const unknownKey = Object.keys(record).find((k) => !STAGE_KEYS.has(k));
      if (unknownKey) return `${at} has an unknown key ${unknownKey} (name, environment, approval, capabilities)`;
      if (
        record.environment !== undefined &&
        (typeof record.environment !== 'string' || !NAME.test(record.environment))
      )
        return `${at}.environment must be an environment name`;
      name = record.name ?? record.environment;
      const approval = record.approval;
      if (approval !== undefined && approval !== true && approval !== false && approval !== null) {
        const role = typeof approval === 'object' ? (approval as Record<string, unknown>).role : undefined;
        if (
          typeof approval !== 'object' ||
          Object.keys(approval).some((k) => k !== 'role') ||
          (role !== undefined && role !== 'member' && role !== 'admin')
        )
          return `${at}.approval must be true or {"role": "member" | "admin"}`;
      }
      const capabilities = record.capabilities;
      if (
        capabilities !== undefined &&
        (!Array.isArray(capabilities) ||
          capabilities.length > 50 ||
          capabilities.some((c) => typeof c !== 'string' || !CAPABILITY.test(c)))
      )
        return `${at}.capabilities must be a list of capability names (letters, digits, . _ : / -)`;
    }
    if (typeof name !== 'string' || name.length === 0 || name.length > 100)
      return `${at} must be a stage name or an object with a name or environment`;
    if (seen.has(name)) return `stage ${name} appears twice`;
    seen.add(name);
  }
  return null;
}

// Stored stages as the gates read them (tolerant: anything unreadable is a plain stage without gates).
export function parseFlowStages(stages: unknown): FlowStage[] {
  if (!Array.isArray(stages)) return [];
  return stages.map((stage, i) => {
    if (typeof stage === 'string') return { name: stage, environment: null, approval: null, capabilities: [] };
    const record = (typeof stage === 'object' && stage !== null ? stage : {}) as Record<string, unknown>;
    const environment = typeof record.environment === 'string' ? record.environment : null;
    const name = typeof record.name === 'string' ? record.name : (environment ?? `stage ${i + 1}`);
    const approval = record.approval;
    const role =
      typeof approval === 'object' && approval !== null && (approval as { role?: unknown }).role === 'admin'
        ? 'admin'
        : 'member';
    return {
      name,
      environment,
      approval: approval === true || (typeof approval === 'object' && approval !== null) ? { role } : null,
      capabilities: Array.isArray(record.capabilities)
        ? record.capabilities.filter((c): c is string => typeof c === 'string')
        : [],
    };
  });
}
