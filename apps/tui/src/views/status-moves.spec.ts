import { appHarness, liveAtlas } from '../testing/app-harness';
import { PickerOption } from '../state/state';
import { item, TestScreen } from '../testing/fixtures';

// Keys through blessed's parser on a screen over streams: the stage picker opens on the next stage, a
// backward or terminal move asks first naming from → to (No focused), and S moves to the next stage in one key.

const SIZES: [number, number][] = [
  [80, 24],
  [120, 36],
];

const STAGES = (current: string): PickerOption[] =>
  ['idea', 'planning', 'planned', 'implementing', 'done'].map((id) => ({
    value: id,
    label: id === current ? `${id} (current)` : id,
    current: id === current,
    terminal: id === 'done',
  }));

describe('safe status moves (keys, render)', () => {
  const h = appHarness();
  const { dispatch, press, state } = h;
  let t: TestScreen;
  const start = (columns: number, rows: number, status = 'planning') => {
    ({ t } = h.start(columns, rows, liveAtlas([item(2, { status }), item(3)])));
  };
  const stages = (current: string) =>
    dispatch({ type: 'picker_options', purpose: 'status', refs: ['ATL-2'], options: STAGES(current) });
  const screenText = () => t.lines().join('\n');

  afterEach(() => h.stop());

  describe.each(SIZES)('at %ix%i', (columns, rows) => {
    it('should open on the next stage: s enter moves planning → planned, forward, at once', async () => {
      start(columns, rows);
      await press('s');
      stages('planning');
      const d = state().dialog;
      expect(d).toMatchObject({ kind: 'picker', purpose: 'status', index: 2 });
      expect(screenText()).toContain('planning (current)');
      await press('\r');
      expect(state().triage.run?.commands).toEqual([{ op: 'status', ref: 'ATL-2', to: 'planned' }]);
    });

    it('should ask before a backward move, naming from → to, with No focused', async () => {
      start(columns, rows);
      await press('s');
      stages('planning');
      await press('\x1b[A', '\x1b[A', '\r'); // up twice: idea
      expect(state().dialog).toMatchObject({ kind: 'triage-confirm', focus: 'no' });
      expect(screenText()).toContain('ATL-2: planning → idea');
      expect(screenText()).toMatch(/backward/);
      await press('\r'); // enter presses the focused No
      expect(state().triage.run).toBeNull();
      expect(state().dialog).toBeNull();
    });

    it('should move to the next stage with S, and ask before a terminal one', async () => {
      start(columns, rows);
      await press('S');
      stages('planning');
      expect(state().triage.run?.commands).toEqual([{ op: 'status', ref: 'ATL-2', to: 'planned' }]);
      h.stop();
      start(columns, rows, 'implementing');
      await press('S');
      stages('implementing');
      expect(state().triage.run).toBeNull();
      expect(state().dialog).toMatchObject({ kind: 'triage-confirm', focus: 'no' });
      expect(screenText()).toContain('ATL-2: implementing → done');
      expect(screenText()).toContain('terminal stage');
      await press('y');
      expect(state().triage.run?.commands).toEqual([{ op: 'status', ref: 'ATL-2', to: 'done' }]);
    });
  });
});
