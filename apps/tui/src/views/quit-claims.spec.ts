import { appHarness } from '../testing/app-harness';
import { App } from '../app';
import type { ClaimHolder } from '../wire';
import { frontier, item, NOW, project } from '../testing/fixtures';

// Claims made in the TUI are the person's, say when they lapse, and q asks to keep or release them.

const claim = (ref: string, session: number, actor: string): ClaimHolder => ({
  item_id: ref,
  project: 'atlas',
  session_id: session,
  harness: 'tui',
  model: 'unknown',
  lane: 'default',
  actor,
  adapter: 'conduct',
  wip_slot: true,
  claimed_at: new Date(NOW - 60_000).toISOString(),
  expires_at: new Date(NOW + 29 * 60_000).toISOString(),
});

describe.each([
  [80, 24],
  [120, 36],
])('claims of this TUI at %ix%i', (columns, rows) => {
  let quits = 0;
  const h = appHarness({ onQuit: () => quits++ });
  const { dispatch, press, text } = h;
  let app: App;
  beforeEach(() => {
    quits = 0;
    ({ app } = h.start(columns, rows, [
      { type: 'actor', name: 'admin' },
      { type: 'projects_loaded', projects: [project('atlas')] },
      { type: 'frontier_loaded', project: 'atlas', frontier: frontier([item(1), item(2), item(3)]) },
      { type: 'claims_loaded', project: 'atlas', claims: [claim('ATL-1', 5, 'admin'), claim('ATL-2', 9, 'bob')] },
      { type: 'own_session', id: 5 },
      { type: 'connection', state: 'live' },
    ]));
  });
  afterEach(() => h.stop());

  it("should show the holder by name and say when this TUI's claim lapses", async () => {
    await press('\r');
    const pane = text().replace(/[\s│]+/g, ' ');
    expect(pane).toContain('claimed by admin #5 (tui,');
    expect(pane).toMatch(/lapses in 29m .*this TUI renews it while open/);
    expect(pane).not.toContain('#5 tui');
  });

  it('should ask on q, naming the claims held, and keep them with n', async () => {
    await press('q');
    expect(quits).toBe(0);
    const shown = text().replace(/\s+/g, ' ');
    expect(shown).toContain('You hold a claim: ATL-1.');
    expect(shown).not.toContain('ATL-2.');
    expect(shown).toMatch(/lapse in 29m/);
    await press('n');
    expect(quits).toBe(1);
    expect(app.store.state.triage.run).toBeNull();
  });

  it('should release them with y and quit once the release is done', async () => {
    await press('q', 'y');
    const run = app.store.state.triage.run!;
    expect(run.commands).toEqual([{ op: 'release', ref: 'ATL-1', session: 5, holder: 'admin' }]);
    expect(quits).toBe(0);
    dispatch({
      type: 'triage_done',
      id: run.id,
      results: [{ command: run.commands[0], ok: true, message: 'released the claim on ATL-1', inverse: null }],
    });
    expect(quits).toBe(1);
  });

  it('should stay on esc, and quit at once without claims of its own', async () => {
    await press('q');
    app.onKey(undefined, { name: 'escape', full: 'escape' });
    expect(app.store.state.dialog).toBeNull();
    expect(quits).toBe(0);
    dispatch({ type: 'claims_loaded', project: 'atlas', claims: [claim('ATL-2', 9, 'bob')] });
    await press('q');
    expect(quits).toBe(1);
  });
});
