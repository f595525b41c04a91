import { DEFAULT_WORKFLOW_DEFINITIONS } from '../database/migrations/1763784000001-DefaultWorkflows';
import { validateWorkflowDefinition } from './workflow-definition';

const minimal = () => ({
  id: 'mini',
  name: 'Mini',
  initial_stage: 'todo',
  stages: [
    { id: 'todo', adapter: 'conduct', entrypoint: '/svc conduct {ref}', gates: [{ type: 'check_hard_blocks' }] },
    { id: 'done', adapter: 'skip', terminal: true },
    { id: 'cancelled', adapter: 'skip', terminal: true },
    { id: 'stopped', adapter: 'skip', terminal: true },
    { id: 'failed', adapter: 'skip', terminal: true },
  ],
});

describe(validateWorkflowDefinition.name, () => {
  it('should accept the seeded default workflows unchanged (they are already canonical)', () => {
    for (const definition of DEFAULT_WORKFLOW_DEFINITIONS) {
      const result = validateWorkflowDefinition(JSON.parse(JSON.stringify(definition)));
      expect(result).toEqual({ ok: true, definition });
    }
  });

  it('should fill every default', () => {
    const result = validateWorkflowDefinition(minimal());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.definition.stages[0]).toEqual({
      id: 'todo',
      name: 'todo',
      adapter: 'conduct',
      entrypoint: '/svc conduct {ref}',
      gates: [{ type: 'check_hard_blocks', gate_point: 'activation' }],
      terminal: false,
    });
  });

  it('should refuse unknown keys, duplicate stages, bad adapters and missing terminals', () => {
    const raw = minimal() as Record<string, unknown> & { stages: Record<string, unknown>[] };
    raw.colour = 'red';
    raw.stages[0].adapter = 'sprint';
    raw.stages.push({ id: 'todo', adapter: 'wait' });
    raw.stages = raw.stages.filter((s) => s.id !== 'failed');
    const result = validateWorkflowDefinition(raw);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const text = JSON.stringify(result.problems);
    expect(text).toContain('colour');
    expect(text).toContain('stages[0].adapter');
    expect(text).toContain('appears twice');
    expect(text).toContain('terminal stage failed is missing');
  });

  it('should refuse a gate point outside the enumeration and an unknown prose-gate stage', () => {
    const raw = minimal() as Record<string, unknown> & { stages: { gates?: unknown[] }[] };
    raw.stages[0].gates = [{ type: 'check_hard_blocks', gate_point: 'launch' }];
    raw.db_claim_prose_gate = { enter: ['nowhere'], exit: [] };
    const result = validateWorkflowDefinition(raw);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => p.field)).toEqual(
      expect.arrayContaining(['stages[0].gates[0].gate_point', 'db_claim_prose_gate.enter']),
    );
  });

  it('should require an entrypoint on dispatching stages and none on terminal ones', () => {
    const raw = minimal() as { stages: Record<string, unknown>[] };
    delete raw.stages[0].entrypoint;
    raw.stages[1].entrypoint = '/svc x';
    const result = validateWorkflowDefinition(raw);
    expect(result.ok).toBe(false);
  });
});
