import { lifecycleRankOf, parseWorkflowStages, renderEntrypoint, stageAdapterOf } from './workflow-stages';

const definition = {
  id: 'issue',
  stages: [
    { id: 'idea', adapter: 'refine', entrypoint: '/svc refine {ref}' },
    { id: 'planned', adapter: 'conduct', entrypoint: '/svc conduct {ref}', lane: 'deep' },
    { id: 'odd', adapter: 'not-an-adapter', entrypoint: null },
    { id: 'done', adapter: 'skip', entrypoint: null, terminal: true },
  ],
};

describe(parseWorkflowStages.name, () => {
  const stages = parseWorkflowStages(7, 'issue', definition);

  it('should keep the stage order and each binding', () => {
    expect(stages.order).toEqual(['idea', 'planned', 'odd', 'done']);
    expect(stages.stages.get('planned')).toEqual({
      id: 'planned',
      adapter: 'conduct',
      entrypoint: '/svc conduct {ref}',
      lane: 'deep',
      terminal: false,
    });
    expect(stages.isEpic).toBe(false);
  });

  it('should fall back to the default stage table when the adapter is unknown', () => {
    expect(stages.stages.get('odd')?.adapter).toBe('wait');
    expect(stageAdapterOf(undefined, 'planning', true)).toBe('shepherd');
  });

  it('should rank statuses outside the definition last', () => {
    expect(lifecycleRankOf(stages, 'planned')).toBe(1);
    expect(lifecycleRankOf(stages, 'elsewhere')).toBe(-1);
  });

  it('should survive malformed definitions', () => {
    expect(parseWorkflowStages(1, 'epic', null)).toMatchObject({ order: [], isEpic: true });
    expect(parseWorkflowStages(1, 'x', { stages: [42, { id: '' }, 'idea'] }).order).toEqual(['idea']);
  });
});

describe(renderEntrypoint.name, () => {
  it('should render the true public ref and project', () => {
    expect(renderEntrypoint('/svc conduct {ref} --project {project}', { ref: 'AB-3', project: 'ab' })).toBe(
      '/svc conduct AB-3 --project ab',
    );
  });

  it('should give null when the stage binds no entrypoint', () => {
    expect(renderEntrypoint(null, { ref: 'AB-3', project: 'ab' })).toBeNull();
  });
});
