import type { EntityManager } from 'typeorm';

import { WorkflowDefinition } from '@app/contracts/backlog';

import { DomainError } from '../common/domain-error';
import { StageGateItem, StageGateRegistry } from './stage-gates';

const definition: WorkflowDefinition = {
  id: 'wf',
  name: 'wf',
  initial_stage: 'a',
  stages: [
    { id: 'a', name: 'a', adapter: 'refine', entrypoint: '/svc refine {ref}', gates: [], terminal: false },
    {
      id: 'b',
      name: 'b',
      adapter: 'conduct',
      entrypoint: '/svc conduct {ref}',
      gates: [{ type: 'check_hard_blocks', gate_point: 'activation' }],
      terminal: false,
    },
  ],
};

const item = { id: 1, ref: 'P-1', status: 'a' } as StageGateItem;
const ctx = (toStage: string, def: WorkflowDefinition = definition) => ({
  item,
  fromStage: 'a',
  toStage,
  definition: def,
  manager: {} as EntityManager,
});

describe(StageGateRegistry.name, () => {
  it('should run the gates listed on the target stage and throw the refusal', async () => {
    const sut = new StageGateRegistry();
    const checker = jest.fn().mockResolvedValue(new DomainError('blocked_by_dependencies', 'no', 409));
    sut.register('check_hard_blocks', checker);
    await expect(sut.check(ctx('b'))).rejects.toMatchObject({ code: 'blocked_by_dependencies' });
    expect(checker).toHaveBeenCalledWith(
      expect.objectContaining({ gate: { type: 'check_hard_blocks', gate_point: 'activation' } }),
    );
    await expect(sut.check(ctx('a'))).resolves.toBeUndefined();
  });

  it('should fail closed when a listed gate has no checker', async () => {
    await expect(new StageGateRegistry().check(ctx('b'))).rejects.toMatchObject({ code: 'gate_unavailable' });
  });

  it('should run a definition-level gate on every transition when its key is set', async () => {
    const sut = new StageGateRegistry();
    sut.register('check_hard_blocks', async () => null);
    const prose = jest.fn().mockResolvedValue(null);
    sut.register('check_db_claim_prose', prose);
    await sut.check(ctx('a', { ...definition, db_claim_prose_gate: { enter: ['b'], exit: [] } }));
    expect(prose).toHaveBeenCalledWith(expect.objectContaining({ gate: null, toStage: 'a' }));
    prose.mockClear();
    await sut.check(ctx('a'));
    expect(prose).not.toHaveBeenCalled();
  });

  it('should refuse registering a type twice', () => {
    const sut = new StageGateRegistry();
    sut.register('x', async () => null);
    expect(() => sut.register('x', async () => null)).toThrow(/already registered/);
  });

  it('should run the gates of a stage the write moves past', async () => {
    const sut = new StageGateRegistry();
    const checker = jest.fn().mockResolvedValue(new DomainError('blocked_by_dependencies', 'no', 409));
    sut.register('check_hard_blocks', checker);
    await expect(sut.check(ctx('c', lifecycle))).rejects.toMatchObject({ code: 'blocked_by_dependencies' });
    expect(checker).toHaveBeenCalledWith(expect.objectContaining({ gateStage: 'b', toStage: 'c' }));
  });

  it('should run the merge stage gates on a merged_at write', async () => {
    const sut = new StageGateRegistry();
    const checker = jest.fn().mockResolvedValue(null);
    sut.register('check_hard_blocks', checker);
    await sut.checkMergeRecorded({
      item,
      definition: { ...lifecycle, merge_stage: 'c' },
      manager: {} as EntityManager,
    });
    expect(checker).toHaveBeenCalledWith(
      expect.objectContaining({
        gateStage: 'c',
        write: 'merged_at',
        gate: { type: 'check_hard_blocks', gate_point: 'integration' },
      }),
    );
    checker.mockClear();
    await sut.checkMergeRecorded({ item, definition: lifecycle, manager: {} as EntityManager });
    expect(checker).not.toHaveBeenCalled();
  });
});

const gated = (id: string, gatePoint: string) => ({
  id,
  name: id,
  adapter: 'conduct',
  entrypoint: '/svc conduct {ref}',
  gates: [{ type: 'check_hard_blocks', gate_point: gatePoint }],
  terminal: false,
});
const terminalStage = (id: string, gatePoint?: string) => ({
  id,
  name: id,
  adapter: 'skip',
  entrypoint: null,
  gates: gatePoint ? [{ type: 'check_hard_blocks', gate_point: gatePoint }] : [],
  terminal: true,
});
const lifecycle: WorkflowDefinition = {
  ...definition,
  stages: [
    definition.stages[0],
    gated('b', 'activation'),
    gated('c', 'integration'),
    terminalStage('done', 'closure'),
    terminalStage('cancelled'),
    terminalStage('stopped'),
    terminalStage('failed'),
  ],
};
