import { ADAPTER_CATEGORIES, GATE_POINTS, TERMINAL_STATUSES } from '@app/core';
import { WorkflowDefinition, WorkflowGateSpec, WorkflowStage } from '@app/contracts/backlog';

export const STAGE_ID_PATTERN = /^[a-z][a-z0-9-]{0,62}$/;
export const WORKFLOW_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const GATE_TYPE_PATTERN = /^[a-z][a-z0-9_]{0,62}$/;
export const HARD_BLOCKS_GATE = 'check_hard_blocks';
export const MAX_STAGES = 100;

const DEFINITION_KEYS = ['id', 'name', 'description', 'initial_stage', 'stages', 'db_claim_prose_gate', 'merge_stage'];
const STAGE_KEYS = ['id', 'name', 'adapter', 'entrypoint', 'gates', 'terminal'];
const GATE_KEYS = ['type', 'gate_point', 'options'];
const PROSE_GATE_KEYS = ['enter', 'exit'];
// Stages whose adapter dispatches nothing need no entrypoint.
const NON_DISPATCHING = ['wait', 'skip'];

export interface DefinitionProblem {
  field: string;
  problems: string[];
}

export type DefinitionResult =
  { ok: true; definition: WorkflowDefinition } | { ok: false; problems: DefinitionProblem[] };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.trim().length > 0 && value.length <= max;
}

class Problems {
  readonly list: DefinitionProblem[] = [];

  add(field: string, problem: string): void {
    const existing = this.list.find((p) => p.field === field);
    if (existing) existing.problems.push(problem);
    else this.list.push({ field, problems: [problem] });
  }

  unknownKeys(value: Record<string, unknown>, allowed: string[], field: string): void {
    for (const key of Object.keys(value)) {
      if (!allowed.includes(key)) this.add(field ? `${field}.${key}` : key, 'unknown key');
    }
  }
}

function normaliseGate(raw: unknown, field: string, problems: Problems): WorkflowGateSpec | null {
  if (!isObject(raw)) {
    problems.add(field, 'must be an object {type, gate_point?, options?}');
    return null;
  }
  problems.unknownKeys(raw, GATE_KEYS, field);
  if (typeof raw.type !== 'string' || !GATE_TYPE_PATTERN.test(raw.type)) {
    problems.add(`${field}.type`, 'must be a gate type such as check_hard_blocks');
    return null;
  }
  const gate: WorkflowGateSpec = { type: raw.type };
  if (raw.gate_point !== undefined) {
    if (typeof raw.gate_point !== 'string' || !(GATE_POINTS as readonly string[]).includes(raw.gate_point)) {
      problems.add(`${field}.gate_point`, `must be one of ${GATE_POINTS.join(', ')}`);
    } else gate.gate_point = raw.gate_point;
  } else if (raw.type === HARD_BLOCKS_GATE) gate.gate_point = 'activation';
  if (raw.options !== undefined) {
    if (!isObject(raw.options)) problems.add(`${field}.options`, 'must be an object');
    else gate.options = raw.options;
  }
  return gate;
}

function normaliseStage(raw: unknown, index: number, problems: Problems): WorkflowStage | null {
  const field = `stages[${index}]`;
  if (!isObject(raw)) {
    problems.add(field, 'must be an object');
    return null;
  }
  problems.unknownKeys(raw, STAGE_KEYS, field);
  if (typeof raw.id !== 'string' || !STAGE_ID_PATTERN.test(raw.id)) {
    problems.add(`${field}.id`, 'must be a stage id (lowercase letters, digits and -, starting with a letter)');
    return null;
  }
  if (raw.name !== undefined && !text(raw.name, 200)) problems.add(`${field}.name`, 'must be a non-empty string');
  if (typeof raw.adapter !== 'string' || !(ADAPTER_CATEGORIES as readonly string[]).includes(raw.adapter)) {
    problems.add(`${field}.adapter`, `must be one of ${ADAPTER_CATEGORIES.join(', ')}`);
  }
  if (raw.terminal !== undefined && typeof raw.terminal !== 'boolean') {
    problems.add(`${field}.terminal`, 'must be true or false');
  }
  if (raw.entrypoint !== undefined && raw.entrypoint !== null && !text(raw.entrypoint, 500)) {
    problems.add(`${field}.entrypoint`, 'must be a command such as "/svc conduct {ref}" or null');
  }
  const gates: WorkflowGateSpec[] = [];
  if (raw.gates !== undefined) {
    if (!Array.isArray(raw.gates) || raw.gates.length > 20) {
      problems.add(`${field}.gates`, 'must be an array of at most 20 gates');
    } else {
      raw.gates.forEach((g, i) => {
        const gate = normaliseGate(g, `${field}.gates[${i}]`, problems);
        if (gate) gates.push(gate);
      });
    }
  }
  const terminal = raw.terminal === true;
  const entrypoint = typeof raw.entrypoint === 'string' ? raw.entrypoint : null;
  const adapter = typeof raw.adapter === 'string' ? raw.adapter : '';
  if (terminal && adapter !== 'skip') problems.add(`${field}.adapter`, 'a terminal stage uses the skip adapter');
  if (terminal && entrypoint !== null) problems.add(`${field}.entrypoint`, 'a terminal stage dispatches nothing');
  if (!terminal && entrypoint === null && !NON_DISPATCHING.includes(adapter) && adapter !== '') {
    problems.add(`${field}.entrypoint`, `stage ${raw.id} (adapter ${adapter}) needs an entrypoint`);
  }
  return {
    id: raw.id,
    name: typeof raw.name === 'string' ? raw.name : raw.id,
    adapter,
    entrypoint,
    gates,
    terminal,
  };
}

function stageList(raw: unknown, field: string, known: Set<string>, problems: Problems): string[] {
  if (!Array.isArray(raw) || raw.some((s) => typeof s !== 'string')) {
    problems.add(field, 'must be an array of stage ids');
    return [];
  }
  for (const id of raw as string[]) if (!known.has(id)) problems.add(field, `${id} is not a stage of this workflow`);
  return [...new Set(raw as string[])];
}

// Strict: unknown keys are refused, every default is filled in, so the stored form is canonical and
// registering the same definition twice yields the same checksum.
export function validateWorkflowDefinition(raw: unknown): DefinitionResult {
  const problems = new Problems();
  if (!isObject(raw)) return { ok: false, problems: [{ field: 'definition', problems: ['must be a JSON object'] }] };
  problems.unknownKeys(raw, DEFINITION_KEYS, '');
  if (typeof raw.id !== 'string' || !WORKFLOW_ID_PATTERN.test(raw.id)) {
    problems.add('id', 'must be a lowercase workflow id such as issue');
  }
  if (!text(raw.name, 200)) problems.add('name', 'must be a non-empty string of at most 200 characters');
  if (raw.description !== undefined && typeof raw.description !== 'string') {
    problems.add('description', 'must be a string');
  }
  const stages: WorkflowStage[] = [];
  if (!Array.isArray(raw.stages) || raw.stages.length === 0 || raw.stages.length > MAX_STAGES) {
    problems.add('stages', `must be an array of 1..${MAX_STAGES} stages`);
  } else {
    raw.stages.forEach((s, i) => {
      const stage = normaliseStage(s, i, problems);
      if (stage) stages.push(stage);
    });
  }
  const ids = new Set<string>();
  for (const stage of stages) {
    if (ids.has(stage.id)) problems.add('stages', `stage id ${stage.id} appears twice`);
    ids.add(stage.id);
  }
  for (const terminal of TERMINAL_STATUSES) {
    const stage = stages.find((s) => s.id === terminal);
    if (!stage) problems.add('stages', `terminal stage ${terminal} is missing`);
    else if (!stage.terminal) problems.add('stages', `stage ${terminal} must be terminal`);
  }
  for (const stage of stages) {
    if (stage.terminal && !(TERMINAL_STATUSES as readonly string[]).includes(stage.id)) {
      problems.add('stages', `only ${TERMINAL_STATUSES.join(', ')} may be terminal (${stage.id} is marked terminal)`);
    }
  }
  if (typeof raw.initial_stage !== 'string' || !ids.has(raw.initial_stage)) {
    problems.add('initial_stage', 'must name one of the stages');
  } else if (stages.find((s) => s.id === raw.initial_stage)?.terminal) {
    problems.add('initial_stage', 'must not be a terminal stage');
  }
  let proseGate: WorkflowDefinition['db_claim_prose_gate'];
  if (raw.db_claim_prose_gate !== undefined) {
    if (!isObject(raw.db_claim_prose_gate)) problems.add('db_claim_prose_gate', 'must be an object {enter, exit}');
    else {
      problems.unknownKeys(raw.db_claim_prose_gate, PROSE_GATE_KEYS, 'db_claim_prose_gate');
      proseGate = {
        enter: stageList(raw.db_claim_prose_gate.enter ?? [], 'db_claim_prose_gate.enter', ids, problems),
        exit: stageList(raw.db_claim_prose_gate.exit ?? [], 'db_claim_prose_gate.exit', ids, problems),
      };
    }
  }
  if (raw.merge_stage !== undefined) {
    if (typeof raw.merge_stage !== 'string' || !ids.has(raw.merge_stage)) {
      problems.add('merge_stage', 'must name one of the stages (where the merge is recorded)');
    } else if (stages.find((s) => s.id === raw.merge_stage)?.terminal) {
      problems.add('merge_stage', 'must not be a terminal stage');
    }
  }
  if (problems.list.length > 0) return { ok: false, problems: problems.list };
  const definition: WorkflowDefinition = {
    id: raw.id as string,
    name: raw.name as string,
    ...(typeof raw.description === 'string' ? { description: raw.description } : {}),
    initial_stage: raw.initial_stage as string,
    stages,
    ...(proseGate ? { db_claim_prose_gate: proseGate } : {}),
    ...(typeof raw.merge_stage === 'string' ? { merge_stage: raw.merge_stage } : {}),
  };
  return { ok: true, definition };
}

export function stageOf(definition: WorkflowDefinition, stageId: string): WorkflowStage | undefined {
  return definition.stages.find((s) => s.id === stageId);
}

export function stageIds(definition: WorkflowDefinition): string[] {
  return definition.stages.map((s) => s.id);
}

export function gateTypes(definition: WorkflowDefinition): string[] {
  return [...new Set(definition.stages.flatMap((s) => s.gates.map((g) => g.type)))];
}
