import { flowStagesProblem, parseFlowStages } from './flow-stages';

describe('flow stages', () => {
  it('should read names and stage objects, defaulting the name to the environment', () => {
    expect(
      parseFlowStages([
        'build',
        { environment: 'staging', capabilities: ['docker'] },
        { name: 'production', approval: { role: 'admin' } },
        { name: 'canary', approval: true },
      ]),
    ).toEqual([
      { name: 'build', environment: null, approval: null, capabilities: [] },
      { name: 'staging', environment: 'staging', approval: null, capabilities: ['docker'] },
      { name: 'production', environment: null, approval: { role: 'admin' }, capabilities: [] },
      { name: 'canary', environment: null, approval: { role: 'member' }, capabilities: [] },
    ]);
  });

  it('should accept the old form and the extension', () => {
    expect(flowStagesProblem(['deploy', 'smoke', 'complete'])).toBeNull();
    expect(
      flowStagesProblem([{ name: 'p', environment: 'prod', approval: false, capabilities: ['k8s:apply'] }]),
    ).toBeNull();
  });

  it.each([
    [[{ name: 'x', approval: 'yes' }], 'approval'],
    [[{ name: 'x', approval: { role: 'owner' } }], 'approval'],
    [[{ nome: 'x' }], 'unknown key nome'],
    [['a', { name: 'a' }], 'appears twice'],
    [[{ name: 'y', capabilities: ['has space'] }], 'capabilities'],
    [[{ name: 'y', capabilities: 'docker' }], 'capabilities'],
    [[{ environment: 'bad env' }], 'environment'],
    [[42], 'stage name'],
    [[''], 'stage name'],
  ])('should name the problem of %j', (stages, words) => {
    expect(flowStagesProblem(stages)).toContain(words);
  });

  it('should read unreadable stored stages as plain stages without gates', () => {
    expect(parseFlowStages([null, 7])).toEqual([
      { name: 'stage 1', environment: null, approval: null, capabilities: [] },
      { name: 'stage 2', environment: null, approval: null, capabilities: [] },
    ]);
    expect(parseFlowStages('nope')).toEqual([]);
  });
});
