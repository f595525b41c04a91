import { readFileSync, writeFileSync } from 'node:fs';

import { SvcApi, SvcHttpError } from '@app/client';
import { renderBody } from '@app/contracts/backlog';

import type { Action } from '../state/actions';
import { reduce } from '../state/reduce';
import { initialState, State } from '../state/state';
import { frontier, item, NOW, project } from '../testing/fixtures';
import type { EffectsContext } from './context';
import { formatEditable, parseEditable, TriageCommands } from './triage-commands';

// The triage writes against a fake SvcApi: which function each command calls, its inverse, a refusal's words.

function setup(api: Record<string, jest.Mock>) {
  const start: Action[] = [
    { type: 'projects_loaded', projects: [project('atlas')] },
    { type: 'frontier_loaded', project: 'atlas', frontier: frontier([item(1)]) },
  ];
  let state: State = start.reduce(reduce, initialState({ now: NOW }));
  const ctx: EffectsContext = {
    config: { api: api as unknown as SvcApi } as EffectsContext['config'],
    get state() {
      return state;
    },
    stopped: false,
    dispatch: (action) => {
      const previous = state;
      state = reduce(state, action);
      commands.onAction(previous, state);
    },
    refetch: jest.fn(),
    loadDetail: jest.fn(),
    failed: jest.fn(),
    noticed: jest.fn(),
  };
  const commands = new TriageCommands(ctx);
  return { ctx, commands, state: () => state };
}

const settle = async () => {
  for (let i = 0; i < 30; i++) await Promise.resolve();
};

describe(TriageCommands.name, () => {
  it('should move the status through setItemStatus and remember the stage it left as the inverse', async () => {
    const api = {
      item: jest.fn().mockResolvedValue({ item_id: 'ATL-1', status: 'planned' }),
      setItemStatus: jest.fn().mockResolvedValue({}),
    };
    const { ctx, state } = setup(api);
    ctx.dispatch({ type: 'triage_start', commands: [{ op: 'status', ref: 'ATL-1', to: 'implementing' }] });
    await settle();
    expect(api.setItemStatus).toHaveBeenCalledWith('ATL-1', 'implementing');
    expect(state().triage.undo).toEqual([[{ op: 'status', ref: 'ATL-1', to: 'planned' }]]);
    expect(state().status?.text).toContain('planned → implementing');
  });

  it("should show a gate refusal's blockers, what would satisfy each, and what to start first", async () => {
    const api = {
      item: jest.fn().mockResolvedValue({ item_id: 'ATL-1', status: 'planned' }),
      setItemStatus: jest.fn().mockRejectedValue(
        new SvcHttpError(409, {
          code: 'blocked_by_dependencies',
          message: 'ATL-1 cannot move to implementing: 1 unsatisfied activation dependency',
          blockers: [
            { blocker: 'ATL-9', satisfaction: 'status:done', blocker_status: 'planned', need: 'ATL-9 reaches done' },
          ],
        }),
      ),
      explain: jest.fn().mockResolvedValue({ unblock_roots: ['ATL-9'] }),
    };
    const { ctx, state } = setup(api);
    ctx.dispatch({ type: 'triage_start', commands: [{ op: 'status', ref: 'ATL-1', to: 'implementing' }] });
    await settle();
    const d = state().dialog as { kind: string; lines: string[] };
    expect(d.kind).toBe('refusal');
    expect(d.lines.join('\n')).toContain('ATL-9 (planned) status:done — would satisfy: ATL-9 reaches done');
    expect(d.lines.join('\n')).toContain('start first: ATL-9');
  });

  it('should name the cycle a dependency would close', async () => {
    const api = {
      addDependency: jest.fn().mockRejectedValue(
        new SvcHttpError(409, {
          code: 'dependency_cycle',
          message: 'ATL-1 waiting on ATL-2 would close an activation cycle',
          cycle: ['ATL-1', 'ATL-2', 'ATL-1'],
        }),
      ),
    };
    const { ctx, state } = setup(api);
    ctx.dispatch({
      type: 'triage_start',
      commands: [
        { op: 'dep-add', dependent: 'ATL-1', blocker: 'ATL-2', gate_point: 'activation', satisfaction: 'status:done' },
      ],
    });
    await settle();
    expect((state().dialog as { lines: string[] }).lines.join('\n')).toContain('cycle: ATL-1 → ATL-2 → ATL-1');
  });

  it('should create an item, then its dependency, and wait to select it', async () => {
    const api = {
      createItem: jest.fn().mockResolvedValue({ item_id: 'ATL-7' }),
      addDependency: jest.fn().mockResolvedValue({ created: true }),
    };
    const { ctx, state } = setup(api);
    ctx.dispatch({
      type: 'triage_start',
      commands: [{ op: 'create', project: 'atlas', title: 'T', priority: 'high', blockedBy: 'ATL-1' }],
    });
    await settle();
    expect(api.createItem).toHaveBeenCalledWith({ project: 'atlas', title: 'T', priority: 'high' });
    expect(api.addDependency).toHaveBeenCalledWith('ATL-7', {
      blocker: 'ATL-1',
      gate_point: 'activation',
      satisfaction: 'status:done',
      source: 'operator',
    });
    expect(state().triage.arriving).toBe('ATL-7');
  });

  it('should round-trip the body and its sections through the editable text', () => {
    const text = { body: 'Intro\n\nmore', sections: { plan: '- one\n- two', notes: '' } };
    expect(parseEditable(formatEditable(text))).toEqual(text);
    expect(parseEditable('just a body\n')).toEqual({ body: 'just a body', sections: {} });
  });

  it('should show each section once in E, the body without the sections the daemon renders into it', async () => {
    const sections = [
      { section_name: 'plan', content: '- one\n- two', ordering: 1 },
      { section_name: 'notes', content: 'a note', ordering: 2 },
    ];
    const fields = { spec: 'the spec text' };
    const api = {
      // a read of `body` answers the rendering: stored body, sections, structured fields
      itemField: jest.fn().mockResolvedValue({ value: renderBody('Intro\n\nmore', sections, fields) }),
      item: jest.fn().mockResolvedValue({ item_id: 'ATL-1', sections, ...fields }),
      putSection: jest.fn().mockResolvedValue({}),
      setItemField: jest.fn().mockResolvedValue({}),
    };
    const { ctx, commands, state } = setup(api);
    let shown = '';
    ctx.config.editFile = (path: string) => {
      shown = readFileSync(path, 'utf8');
      writeFileSync(path, shown.replace('a note', 'a changed note'));
      return Promise.resolve(0);
    };
    commands.onAction(state(), state(), 'body_edit');
    await settle();
    expect(shown.match(/- one/g)).toHaveLength(1);
    expect(shown.match(/a note/g)).toHaveLength(1);
    expect(shown).not.toContain('## plan');
    expect(shown).not.toContain('the spec text');
    expect(shown.startsWith('Intro\n\nmore\n')).toBe(true);
    // only the changed section is written back, the body untouched
    expect(api.putSection).toHaveBeenCalledWith('ATL-1', 'notes', { content: 'a changed note' });
    expect(api.putSection).toHaveBeenCalledTimes(1);
    expect(api.setItemField).not.toHaveBeenCalled();
    expect(state().status?.text).toContain('section notes written');
  });
});
