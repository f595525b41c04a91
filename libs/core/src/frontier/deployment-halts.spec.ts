import { BlockerFacts } from '../dependencies/satisfaction';
import { applyDeploymentHalts, deploymentHaltReason, DeploymentHalt } from './deployment-halts';
import { computeFrontier, defaultStageAdapter, FrontierEdge, FrontierInputItem } from './compute-frontier';
import { explainItem } from './explain';

const item = (id: number, status: string, overrides: Partial<FrontierInputItem> = {}): FrontierInputItem => ({
  id,
  ref: `A-${id}`,
  title: `item ${id}`,
  status,
  priority: 'medium',
  project: 'alpha',
  workflowId: 'issue',
  workflowVersionId: 1,
  frozen: false,
  blocked: false,
  blockedReason: null,
  createdAt: `2026-01-0${id}T00:00:00.000Z`,
  stageAdapter: defaultStageAdapter(status, false),
  lifecycleRank: 0,
  isEpic: false,
  ...overrides,
});

const facts = (items: FrontierInputItem[]) =>
  new Map<number, BlockerFacts>(
    items.map((i) => [
      i.id,
      {
        status: i.status,
        mergedAt: null,
        deployedEnvironments: new Set(),
        registeredEnvironments: new Set(),
        ref: i.ref,
        title: i.title,
      },
    ]),
  );

const halt = (overrides: Partial<DeploymentHalt> = {}): DeploymentHalt => ({
  runId: 'run-1',
  kind: 'awaiting-approval',
  stage: 'production',
  missing: [],
  since: '2026-11-23 21:04 UTC',
  approved: false,
  ...overrides,
});

const compute = (items: FrontierInputItem[], edges: FrontierEdge[] = []) =>
  computeFrontier({ items, edges, blockerFacts: facts(items), wipCap: 30 });

describe('applyDeploymentHalts', () => {
  const items = [item(1, 'release'), item(2, 'release'), item(3, 'planned'), item(4, 'release')];

  it('should move a halted usher item to the blocked bucket with the halt in words, in rank order', () => {
    const base = compute(items, [{ blocker: 3, dependent: 4, satisfaction: 'status:done' }]);
    expect(base.blocked.map((i) => i.ref)).toEqual(['A-4']);
    const result = applyDeploymentHalts(
      base,
      new Map([
        [1, halt()],
        [2, halt({ kind: 'needs-capability', stage: 'staging', missing: ['docker', 'kubectl'], runId: 'run-2' })],
      ]),
    );
    expect(result.runnable.map((i) => i.ref)).toEqual(['A-3']);
    expect(result.blocked.map((i) => [i.ref, i.adapter])).toEqual([
      ['A-1', 'wait'],
      ['A-2', 'wait'],
      ['A-4', 'wait'],
    ]);
    expect(result.blocked[0].blocked_reasons).toEqual([
      'deployment halted (awaiting-approval): awaiting approval for production since 2026-11-23 21:04 UTC; ' +
        'approve with svc approve A-1',
    ]);
    expect(result.blocked[1].blocked_reasons).toEqual([
      'deployment halted (needs-capability): needs capability docker, kubectl for staging since 2026-11-23 21:04 UTC; ' +
        'fix it, then svc deployments runs resume run-2',
    ]);
    // the computation it was given is left as it was
    expect(base.runnable.map((i) => i.ref)).toEqual(['A-3', 'A-1', 'A-2']);
  });

  it('should add the halt to the reasons of an item already blocked', () => {
    const result = applyDeploymentHalts(
      compute(items, [{ blocker: 3, dependent: 4, satisfaction: 'status:done' }]),
      new Map([[4, halt()]]),
    );
    expect(result.blocked).toHaveLength(1);
    expect(result.blocked[0].blocked_reasons).toHaveLength(2);
    expect(result.blocked[0].blocked_reasons[1]).toContain('awaiting approval for production');
  });

  it('should leave an approved halt runnable (the usher re-runs it) and items whose next step is not the deployment', () => {
    const base = compute(items);
    const result = applyDeploymentHalts(
      base,
      new Map([
        [1, halt({ approved: true })],
        [3, halt()],
      ]),
    );
    expect(result).toBe(base);
    expect(result.runnable.map((i) => i.ref)).toEqual(['A-1', 'A-2', 'A-3', 'A-4']);
  });

  it('should keep an approved needs-capability halt blocking (approval does not fix a capability)', () => {
    const result = applyDeploymentHalts(
      compute(items),
      new Map([[1, halt({ kind: 'needs-capability', approved: true, missing: ['docker'] })]]),
    );
    expect(result.blocked.map((i) => i.ref)).toEqual(['A-1']);
  });

  it('should let explain name the halt of a blocked item', () => {
    const result = applyDeploymentHalts(compute(items), new Map([[2, halt()]]));
    const explanation = explainItem(2, result, [], facts(items));
    expect(explanation.bucket).toBe('blocked');
    expect(explanation.summary).toEqual([deploymentHaltReason(halt(), 'A-2')]);
    expect(explanation.operator_block).toBeNull();
  });
});
