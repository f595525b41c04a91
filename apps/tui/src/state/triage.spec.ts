import { validateKeymap } from '../keys/keymap';
import { footerHints, helpRows } from '../keys/help';
import { frontier, item, NOW, project } from '../testing/fixtures';
import type { Action } from './actions';
import { reduce } from './reduce';
import { activeScope, selectedItem } from './selectors';
import { initialState, State, TriageCommand } from './state';
import { filteredOptions, paletteOptions } from './triage';

// The triage state machine: keys open dialog states, answers become runs, outcomes come back.

const key = (action: Extract<Action, { type: 'key' }>['action']): Action => ({ type: 'key', action });
const type = (text: string): Action[] => [...text].map((ch) => ({ type: 'input', ch }));
const run = (state: State, ...actions: (Action | Action[])[]) => actions.flat().reduce(reduce, state);

function loaded(readOnly = false): State {
  return run(
    initialState({ now: NOW, readOnly }),
    { type: 'projects_loaded', projects: [project('atlas'), project('beta', 'Beta')] },
    {
      type: 'frontier_loaded',
      project: 'atlas',
      frontier: frontier(
        [item(1), item(2, { priority: 'high' }), item(3, { priority: 'low' })],
        [
          item(90, { blocked_by: ['ATL-1'], blocked_reasons: ['waits on ATL-1'] }),
          item(91, { blocked_reasons: ['blocked by operator: vendor outage'] }),
        ],
        [item(80)],
      ),
    },
  );
}

const done = (state: State, results: { command: TriageCommand; ok: boolean; message: string }[]): State =>
  reduce(state, {
    type: 'triage_done',
    id: state.triage.run!.id,
    results: results.map((r) => ({ ...r, inverse: r.ok ? { op: 'priority', ref: 'ATL-1', to: 'medium' } : null })),
  });

describe('triage', () => {
  it('should keep the keymap valid with the triage block', () => {
    expect(() => validateKeymap()).not.toThrow();
    const help = helpRows('frontier').map((r) => r.keys);
    for (const k of ['s', '+', '-', '=', 'e', 'E', 'n', 'b', 'f', 'u', 'z', 'D', 'space', 'V', ':']) {
      expect(help).toContain(k);
    }
    expect(footerHints('frontier', false).map((h) => h.label)).toEqual(expect.arrayContaining(['status', 'new']));
    expect(footerHints('frontier', true).map((h) => h.label)).not.toContain('status');
  });

  it('should refuse every write under --read-only and say why', () => {
    for (const a of ['status_pick', 'priority_up', 'item_new', 'block_toggle', 'freeze_toggle', 'undo'] as const) {
      const s = reduce(loaded(true), key(a));
      expect(s.dialog).toBeNull();
      expect(s.triage.run).toBeNull();
      expect(s.status?.text).toMatch(/read-only/);
    }
  });

  describe('status', () => {
    it('should open a loading picker, filter as you type and take the top match on enter', () => {
      let s = reduce(loaded(), key('status_pick'));
      expect(activeScope(s)).toBe('picker');
      expect(s.dialog).toMatchObject({ kind: 'picker', purpose: 'status', refs: ['ATL-1'], options: null });
      s = run(s, {
        type: 'picker_options',
        purpose: 'status',
        refs: ['ATL-1'],
        options: [
          { value: 'planned', label: 'planned (current)', current: true },
          { value: 'implementing', label: 'implementing', note: 'gate: check_hard_blocks at activation' },
          { value: 'done', label: 'done', terminal: true },
        ],
      });
      s = run(s, type('impl'), key('picker_choose'));
      expect(s.dialog).toBeNull();
      expect(s.triage.run?.commands).toEqual([{ op: 'status', ref: 'ATL-1', to: 'implementing' }]);
    });

    it('should ask first, with No focused, before a terminal stage', () => {
      let s = run(loaded(), key('status_pick'), {
        type: 'picker_options',
        purpose: 'status',
        refs: ['ATL-1'],
        options: [{ value: 'done', label: 'done', terminal: true }],
      });
      s = reduce(s, key('picker_choose'));
      expect(s.dialog).toMatchObject({ kind: 'triage-confirm', focus: 'no' });
      expect(activeScope(s)).toBe('decide');
      expect(reduce(s, key('dialog_activate')).triage.run).toBeNull();
      expect(reduce(s, key('dialog_yes')).triage.run?.commands).toEqual([{ op: 'status', ref: 'ATL-1', to: 'done' }]);
    });

    it('should show a refusal with its detail lines and keep nothing on the undo stack', () => {
      let s = run(loaded(), key('status_pick'), {
        type: 'picker_options',
        purpose: 'status',
        refs: ['ATL-1'],
        options: [{ value: 'implementing', label: 'implementing' }],
      });
      s = reduce(s, key('picker_choose'));
      s = reduce(s, {
        type: 'triage_done',
        id: s.triage.run!.id,
        results: [
          {
            command: { op: 'status', ref: 'ATL-1', to: 'implementing' },
            ok: false,
            message: 'blocked_by_dependencies: ATL-1 cannot move to implementing',
            detail: ['ATL-9 (planned) status:done — would satisfy: ATL-9 reaches done', 'start first: ATL-9'],
          },
        ],
      });
      expect(s.dialog?.kind).toBe('refusal');
      const lines = (s.dialog as { lines: string[] }).lines.join('\n');
      expect(lines).toContain('would satisfy: ATL-9 reaches done');
      expect(lines).toContain('start first: ATL-9');
      expect(s.triage.undo).toHaveLength(0);
      expect(reduce(s, key('refusal_close')).dialog).toBeNull();
    });
  });

  describe('priority', () => {
    it('should raise and lower one step, and refuse past the ends in words', () => {
      expect(reduce(loaded(), key('priority_up')).triage.run?.commands).toEqual([
        { op: 'priority', ref: 'ATL-1', to: 'high' },
      ]);
      const top = run(loaded(), key('cursor_down'), key('priority_up'));
      expect(top.triage.run).toBeNull();
      expect(top.status?.text).toMatch(/already at high/);
      expect(run(loaded(), key('cursor_down'), key('priority_down')).triage.run?.commands[0]).toMatchObject({
        to: 'medium',
      });
    });

    it('should pick a priority with =', () => {
      const s = run(loaded(), key('priority_pick'), type('lo'), key('picker_choose'));
      expect(s.triage.run?.commands).toEqual([{ op: 'priority', ref: 'ATL-1', to: 'low' }]);
    });
  });

  it('should edit the title inline', () => {
    let s = reduce(loaded(), key('title_edit'));
    expect(s.dialog).toMatchObject({ kind: 'input', value: 'Item number 1' });
    s = run(s, ...Array.from({ length: 8 }, () => key('input_backspace')), type('renamed'), key('input_submit'));
    expect(s.triage.run?.commands).toEqual([{ op: 'title', ref: 'ATL-1', to: 'Item renamed' }]);
  });

  it('should create an item with a title, a priority and a blocker, and select it when it arrives', () => {
    let s = run(loaded(), key('item_new'), type('Fresh work'), key('input_submit'));
    expect(s.dialog).toMatchObject({ kind: 'picker', purpose: 'new-priority' });
    s = run(s, type('high'), key('picker_choose'));
    expect(s.dialog).toMatchObject({ kind: 'picker', purpose: 'new-blocker' });
    s = run(s, type('ATL-3'), key('picker_choose'));
    expect(s.triage.run?.commands).toEqual([
      { op: 'create', project: 'atlas', title: 'Fresh work', priority: 'high', blockedBy: 'ATL-3' },
    ]);
    s = reduce(s, {
      type: 'triage_done',
      id: s.triage.run!.id,
      results: [
        {
          command: s.triage.run!.commands[0],
          ok: true,
          message: 'created ATL-7',
          created: 'ATL-7',
          inverse: { op: 'status', ref: 'ATL-7', to: 'cancelled' },
        },
      ],
    });
    expect(s.triage.arriving).toBe('ATL-7');
    s = reduce(s, {
      type: 'frontier_loaded',
      project: 'atlas',
      frontier: frontier([item(1)], [item(7, { blocked_by: ['ATL-3'] })]),
    });
    expect(s.tab).toBe('blocked');
    expect(selectedItem(s)?.item_id).toBe('ATL-7');
    expect(s.triage.arriving).toBeNull();
  });

  it('should select a created item that arrives by a frontier delta, as by a whole answer', () => {
    let s = run(loaded(), key('item_new'), type('Fresh work'), key('input_submit'), type('high'), key('picker_choose'));
    s = run(s, type('ATL-3'), key('picker_choose'));
    s = reduce(s, {
      type: 'triage_done',
      id: s.triage.run!.id,
      results: [
        {
          command: s.triage.run!.commands[0],
          ok: true,
          message: 'created ATL-7',
          created: 'ATL-7',
          inverse: { op: 'status', ref: 'ATL-7', to: 'cancelled' },
        },
      ],
    });
    const before = s.frontier!;
    const fresh = item(7, { blocked_by: ['ATL-3'] });
    const empty = { drop: [], put: [] };
    s = reduce(s, {
      type: 'frontier_delta',
      project: 'atlas',
      frontier: { ...before, blocked: [...before.blocked, fresh] },
      delta: {
        base: 'W/"a"',
        etag: 'W/"b"',
        wip_cap: 0,
        wip_active: 0,
        runnable: empty,
        blocked: { drop: [], put: [[before.blocked.length, fresh]] },
        frozen: empty,
        conduct_eligible: empty,
      },
    });
    expect(s.tab).toBe('blocked');
    expect(selectedItem(s)?.item_id).toBe('ATL-7');
    expect(s.triage.arriving).toBeNull();
  });

  it('should select a created item the stream showed before the daemon answered, and wait out a runnable interim answer', () => {
    let s = run(loaded(), key('item_new'), type('Fresh work'), key('input_submit'), type('high'), key('picker_choose'));
    s = run(s, type('ATL-3'), key('picker_choose'));
    const id = s.triage.run!.id;
    const command = s.triage.run!.commands[0];
    const answer: Action = {
      type: 'triage_done',
      id,
      results: [
        {
          command,
          ok: true,
          message: 'created ATL-7',
          created: 'ATL-7',
          inverse: { op: 'status', ref: 'ATL-7', to: 'cancelled' },
        },
      ],
    };
    // between the create and the dependency the frontier has it runnable: not selected there
    const interim = reduce(
      reduce(s, { type: 'frontier_loaded', project: 'atlas', frontier: frontier([item(1), item(3), item(7)], []) }),
      answer,
    );
    expect(interim.tab).toBe('runnable');
    expect(selectedItem(interim)?.item_id).not.toBe('ATL-7');
    expect(interim.triage.arriving).toBe('ATL-7');
    // the frontier already showed it blocked when the answer came: selected at once, with no further frontier change
    s = reduce(s, {
      type: 'frontier_loaded',
      project: 'atlas',
      frontier: frontier([item(1), item(3)], [item(7, { blocked_by: ['ATL-3'] })]),
    });
    expect(selectedItem(s)?.item_id).not.toBe('ATL-7');
    s = reduce(s, answer);
    expect(s.tab).toBe('blocked');
    expect(selectedItem(s)?.item_id).toBe('ATL-7');
    expect(s.triage.arriving).toBeNull();
  });

  it('should block with a reason, and unblock an operator-blocked item after asking', () => {
    let s = run(loaded(), key('block_toggle'));
    expect(s.dialog).toMatchObject({ kind: 'input', purpose: 'block' });
    expect(reduce(s, key('input_submit')).triage.run).toBeNull();
    s = run(s, type('waiting for legal'), key('input_submit'));
    expect(s.triage.run?.commands).toEqual([{ op: 'block', ref: 'ATL-1', reason: 'waiting for legal' }]);
    s = run(loaded(), key('tab_blocked'), key('cursor_down'), key('block_toggle'));
    expect(s.dialog).toMatchObject({ kind: 'triage-confirm', focus: 'no' });
    expect((s.dialog as { lines: string[] }).lines[0]).toContain('vendor outage');
    expect(reduce(s, key('dialog_yes')).triage.run?.commands).toEqual([{ op: 'unblock', ref: 'ATL-91' }]);
  });

  // b, f, unblock and unfreeze alike keep the tab shown and step the cursor to the next row
  it.each([
    ['block', 'runnable', 'ATL-1', 'ATL-2'],
    ['freeze', 'runnable', 'ATL-2', 'ATL-3'],
    ['unblock', 'blocked', 'ATL-90', 'ATL-91'],
    ['unfreeze', 'frozen', 'ATL-80', null],
  ] as const)('should %s and stay in the %s tab with the cursor on the next row', (op, tab, ref, next) => {
    let s = run(loaded(), key(`tab_${tab}`));
    while (selectedItem(s)?.item_id !== ref) s = reduce(s, key('cursor_down'));
    const command = (op === 'block' ? { op, ref, reason: 'legal' } : { op, ref }) as TriageCommand;
    s = reduce(s, { type: 'triage_start', commands: [command] });
    s = reduce(s, {
      type: 'triage_done',
      id: s.triage.run!.id,
      results: [{ command, ok: true, message: 'done', inverse: null }],
    });
    expect(s.tab).toBe(tab);
    if (next) expect(selectedItem(s)?.item_id).toBe(next);
    // the frontier moves it to its new bucket: the tab and the cursor stay
    const rows = loaded();
    const f = rows.frontier!;
    const all = [...f.runnable, ...f.blocked, ...f.frozen];
    const moved = all.find((i) => i.item_id === ref)!;
    const without = (list: typeof all) => list.filter((i) => i.item_id !== ref);
    const to = op === 'block' ? 'blocked' : op === 'freeze' ? 'frozen' : 'runnable';
    const buckets = { runnable: without(f.runnable), blocked: without(f.blocked), frozen: without(f.frozen) };
    buckets[to].push(moved);
    s = reduce(s, {
      type: 'frontier_loaded',
      project: 'atlas',
      frontier: frontier(buckets.runnable, buckets.blocked, buckets.frozen),
    });
    expect(s.tab).toBe(tab);
    if (next) expect(selectedItem(s)?.item_id).toBe(next);
    else expect(selectedItem(s) ?? null).toBeNull();
  });

  it('should freeze a runnable item and unfreeze a frozen one, asking first', () => {
    let s = reduce(loaded(), key('freeze_toggle'));
    expect(reduce(s, key('dialog_yes')).triage.run?.commands).toEqual([{ op: 'freeze', ref: 'ATL-1' }]);
    s = run(loaded(), key('tab_frozen'), key('freeze_toggle'), key('dialog_yes'));
    expect(s.triage.run?.commands).toEqual([{ op: 'unfreeze', ref: 'ATL-80' }]);
  });

  it("should release the selected item's claim after asking, and say when there is none", () => {
    expect(reduce(loaded(), key('claim_release')).status?.text).toMatch(/not claimed/);
    let s = reduce(loaded(), {
      type: 'claims_loaded',
      project: 'atlas',
      claims: [
        {
          item_id: 'ATL-1',
          project: 'atlas',
          session_id: 12,
          harness: 'cli',
          model: 'm',
          lane: 'primary',
          actor: 'ana',
          adapter: 'conduct',
          wip_slot: true,
          claimed_at: new Date(NOW).toISOString(),
          expires_at: new Date(NOW + 1_800_000).toISOString(),
        },
      ],
    });
    s = reduce(s, key('claim_release'));
    expect(s.dialog).toMatchObject({ kind: 'triage-confirm', focus: 'no' });
    expect(reduce(s, key('dialog_yes')).triage.run?.commands).toEqual([
      { op: 'release', ref: 'ATL-1', session: 12, holder: 'ana' },
    ]);
  });

  it('should apply an action to every marked row with one confirmation and summarise the refusals', () => {
    let s = run(loaded(), key('mark_toggle'), key('cursor_down'), key('cursor_down'), key('mark_range'));
    expect(s.triage.marked).toEqual(['ATL-1', 'ATL-2', 'ATL-3']);
    s = run(s, key('priority_pick'), type('high'), key('picker_choose'));
    expect(s.dialog).toMatchObject({ kind: 'triage-confirm', focus: 'no' });
    expect((s.dialog as { lines: string[] }).lines.join('\n')).toContain('3 items');
    s = reduce(s, key('dialog_yes'));
    expect(s.triage.run?.commands.map((c) => (c as { ref: string }).ref)).toEqual(['ATL-1', 'ATL-2', 'ATL-3']);
    s = done(s, [
      { command: { op: 'priority', ref: 'ATL-1', to: 'high' }, ok: true, message: 'ATL-1 high' },
      { command: { op: 'priority', ref: 'ATL-2', to: 'high' }, ok: false, message: 'forbidden: not yours' },
      { command: { op: 'priority', ref: 'ATL-3', to: 'high' }, ok: true, message: 'ATL-3 high' },
    ]);
    expect(s.dialog?.kind).toBe('refusal');
    const lines = (s.dialog as { lines: string[] }).lines.join('\n');
    expect(lines).toContain('2 of 3 done');
    expect(lines).toContain('ATL-2 to high: forbidden: not yours');
    expect(reduce(reduce(s, key('refusal_close')), key('back')).triage.marked).toEqual([]);
  });

  it('should undo the last change by its inverse after showing it, and keep a refused undo', () => {
    let s = reduce(loaded(), key('priority_up'));
    s = done(s, [{ command: { op: 'priority', ref: 'ATL-1', to: 'high' }, ok: true, message: 'ok' }]);
    expect(s.triage.undo).toEqual([[{ op: 'priority', ref: 'ATL-1', to: 'medium' }]]);
    s = reduce(s, key('undo'));
    expect(s.dialog).toMatchObject({ kind: 'triage-confirm', undo: true });
    expect((s.dialog as { lines: string[] }).lines.join('\n')).toContain('set the priority of ATL-1 to medium');
    s = reduce(s, key('dialog_yes'));
    expect(s.triage.run).toMatchObject({ undo: true });
    const refused = done(s, [
      { command: { op: 'priority', ref: 'ATL-1', to: 'medium' }, ok: false, message: 'gate refused' },
    ]);
    expect(refused.dialog).toMatchObject({ kind: 'refusal', title: ' Undo refused ' });
    expect(refused.triage.undo).toHaveLength(1);
    const ok = done(s, [{ command: { op: 'priority', ref: 'ATL-1', to: 'medium' }, ok: true, message: 'ok' }]);
    expect(ok.triage.undo).toHaveLength(0);
    expect(reduce(ok, key('undo')).status?.text).toMatch(/nothing to undo/);
  });

  it('should redo an undone change with C-r, push it back on the undo stack, and forget redo after a new change', () => {
    const finish = (state: State, command: TriageCommand, inverse: TriageCommand) =>
      reduce(state, {
        type: 'triage_done',
        id: state.triage.run!.id,
        results: [{ command, ok: true, message: 'ok', inverse }],
      });
    const high: TriageCommand = { op: 'priority', ref: 'ATL-1', to: 'high' };
    const medium: TriageCommand = { op: 'priority', ref: 'ATL-1', to: 'medium' };
    expect(reduce(loaded(), key('redo')).status?.text).toMatch(/nothing to redo/);
    let s = finish(reduce(loaded(), key('priority_up')), high, medium);
    s = finish(run(s, key('undo'), key('dialog_yes')), medium, high);
    expect(s.triage.undo).toEqual([]);
    expect(s.triage.redo).toEqual([[high]]);
    s = reduce(s, key('redo'));
    expect(s.dialog).toMatchObject({ kind: 'triage-confirm', title: ' Redo ', redo: true, focus: 'no' });
    expect((s.dialog as { lines: string[] }).lines.join('\n')).toContain('set the priority of ATL-1 to high');
    s = reduce(s, key('dialog_yes'));
    expect(s.triage.run).toMatchObject({ redo: true, commands: [high] });
    s = finish(s, high, medium);
    expect(s.status?.text).toMatch(/^redone: /);
    expect(s.triage.redo).toEqual([]);
    expect(s.triage.undo).toEqual([[medium]]);
    // undo again, then a new change: the redo is forgotten
    s = finish(run(s, key('undo'), key('dialog_yes')), medium, high);
    expect(s.triage.redo).toHaveLength(1);
    s = finish(reduce(s, key('priority_down')), { op: 'priority', ref: 'ATL-1', to: 'low' }, medium);
    expect(s.triage.redo).toEqual([]);
    // C-r is the key, beside z in the help
    expect(helpRows('frontier').some((r) => r.keys.includes('C-r') && /redo/.test(r.help))).toBe(true);
  });

  it('should add a dependency from a fuzzy pick with the spec defaults', () => {
    let s = reduce(loaded(), key('dependency_add'));
    expect(s.dialog).toMatchObject({ kind: 'picker', purpose: 'dependency', options: null });
    s = run(
      s,
      {
        type: 'picker_options',
        purpose: 'dependency',
        refs: ['ATL-1'],
        options: [{ value: 'ATL-3', label: 'ATL-3 x' }],
      },
      key('picker_choose'),
    );
    expect(s.triage.run?.commands).toEqual([
      { op: 'dep-add', dependent: 'ATL-1', blocker: 'ATL-3', gate_point: 'activation', satisfaction: 'status:done' },
    ]);
  });

  it('should jump with :ATL-n to the tab the item lives in, and back with backspace', () => {
    let s = run(loaded(), key('palette'), type('atl-80'), key('picker_choose'));
    expect(s.tab).toBe('frozen');
    expect(selectedItem(s)?.item_id).toBe('ATL-80');
    s = run(s, key('palette'), type('item ATL-91'), key('picker_choose'));
    expect(s.tab).toBe('blocked');
    expect(selectedItem(s)?.item_id).toBe('ATL-91');
    s = reduce(s, key('jump_back'));
    expect(s.tab).toBe('frozen');
    s = reduce(s, key('jump_back'));
    expect(s.tab).toBe('runnable');
    expect(selectedItem(s)?.item_id).toBe('ATL-1');
    expect(run(loaded(), key('palette'), type('project beta'), key('picker_choose')).project).toBe('beta');
    expect(run(loaded(), key('palette'), type('ATL-404'), key('picker_choose')).status?.text).toMatch(/not in/);
  });

  it('should complete the palette from refs, titles and history', () => {
    const s = run(loaded(), key('palette'), type('ATL-80'), key('picker_choose'));
    expect(paletteOptions(s, '')[0]).toMatchObject({ value: 'ATL-80', note: 'history' });
    expect(paletteOptions(s, 'number 3')[0].value).toBe('ATL-3');
    expect(
      filteredOptions(
        [
          { value: 'ab', label: 'x' },
          { value: 'a', label: 'y' },
        ],
        'a',
      )[0].value,
    ).toBe('a');
  });

  it("should name in undo's hint the command that makes the same edge again", () => {
    let s = loaded();
    s = reduce(s, {
      type: 'triage_start',
      commands: [{ op: 'dep-remove', dependent: 'ATL-2', blocker: 'ATL-1', gate_point: 'merge' }],
    });
    s = reduce(s, {
      type: 'triage_done',
      id: s.triage.run!.id,
      results: [
        {
          command: { op: 'dep-remove', dependent: 'ATL-2', blocker: 'ATL-1', gate_point: 'merge' },
          ok: true,
          message: 'removed',
          inverse: {
            op: 'dep-add',
            dependent: 'ATL-2',
            blocker: 'ATL-1',
            gate_point: 'merge',
            satisfaction: 'fact:merged',
          },
        },
      ],
    });
    s = reduce(s, key('undo'));
    expect((s.dialog as { lines: string[] }).lines.join('\n')).toContain(
      'svc items dependency add ATL-2 ATL-1 --gate-point merge --satisfaction fact:merged',
    );
  });
});
