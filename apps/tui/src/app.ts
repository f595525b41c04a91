import type * as blessed from 'blessed';

import { Effects, EffectsConfig } from './effects/effects';
import { Store } from './effects/store';
import { KeyAction, KeyBinding, KEYMAP, keyName, resolveKey, validateKeymap } from './keys/keymap';
import { activeScope, selectedIndex, selectedItem, selectedMachine } from './state/selectors';
import { initialState, State } from './state/state';
import { Theme } from './views/format';
import { Layout } from './views/layout';
import { PASTE_OFF, PASTE_ON, readPastes } from './views/paste';

// One frame: every change within it is drawn by a single render.
export const FRAME_MS = 16;

export interface AppOptions {
  screen: blessed.Widgets.Screen;
  theme: Theme;
  state?: State;
  // null: no daemon I/O (render tests and benchmarks drive the store themselves)
  effects: EffectsConfig | null;
  onQuit: () => void;
  onFrame?: (state: State) => void;
  mouse?: boolean;
  // render tests feed the markers themselves
  bracketedPaste?: boolean;
}

export interface MouseEvent {
  action: string;
  button?: string;
  x: number;
  y: number;
}

const WHEEL_ROWS = 3;

export class App {
  readonly store: Store;
  readonly effects: Effects | null;
  private readonly layout: Layout;
  private timer: NodeJS.Timeout | null = null;
  private lastRender = 0;
  private mustDraw = true;
  private destroyed = false;
  private readonly keymap: readonly KeyBinding[];

  constructor(private readonly options: AppOptions) {
    this.keymap = options.theme.keymap ?? KEYMAP;
    validateKeymap(this.keymap);
    this.store = new Store(options.state ?? initialState());
    this.layout = new Layout(options.screen, options.theme);
    this.effects = options.effects ? new Effects(this.store, options.effects) : null;
    options.screen.on('keypress', (ch: string | undefined, key: blessed.Widgets.Events.IKeyEventArg) =>
      this.onKey(ch, key),
    );
    readPastes(options.screen.program.input as unknown as Parameters<typeof readPastes>[0], (text) =>
      this.onPaste(text),
    );
    if (options.bracketedPaste) options.screen.program.output.write(PASTE_ON);
    options.screen.on('resize', () => {
      this.mustDraw = true;
      this.renderNow();
    });
    if (options.mouse) {
      const program = options.screen.program as unknown as {
        on(event: 'mouse', listener: (data: MouseEvent) => void): void;
        setMouse(options: Record<string, boolean>, enable: boolean): void;
      };
      program.on('mouse', (data) => this.onMouse(data));
      // press, release and wheel (1000), SGR coordinates (1006); no motion reports
      program.setMouse({ vt200Mouse: true, sgrMouse: true }, true);
    }
    this.store.subscribe(() => {
      const s = this.store.state;
      if (s.quitting === 'now' || (s.quitting === 'after-run' && s.triage.run === null)) {
        if (!this.destroyed) this.options.onQuit();
        return;
      }
      this.schedule();
    });
  }

  start(): Promise<void> {
    this.renderNow();
    return this.effects?.start() ?? Promise.resolve();
  }

  stop(): void {
    if (this.options.bracketedPaste && !this.destroyed) this.options.screen.program.output.write(PASTE_OFF);
    this.destroyed = true;
    if (this.timer) clearTimeout(this.timer);
    this.effects?.stop();
  }

  // Public for tests and the benchmark.
  onKey(
    ch: string | undefined,
    key: { name?: string; full?: string; ctrl?: boolean; meta?: boolean; shift?: boolean },
  ): void {
    if (this.destroyed) return;
    const name = keyName(ch, key);
    if (!name) return;
    const state = this.store.state;
    if (name === 'escape' && state.dialog?.kind === 'triage-confirm' && state.dialog.quit) {
      this.store.dispatch({ type: 'quit_stay' });
      this.renderNow();
      return;
    }
    const scope = activeScope(state);
    // tui.json's commands with a key of their own (config.ts refuses one a binding has)
    const own = scope === 'frontier' ? state.userCommands.find((c) => c.key === name) : undefined;
    if (own) {
      this.store.dispatch({ type: 'user_command', name: own.name });
      this.renderNow();
      return;
    }
    const binding = resolveKey(name, scope, this.keymap);
    if (binding) {
      if (binding.action === 'force_quit') {
        this.options.onQuit();
        return;
      }
      if (binding.action === 'quit') {
        this.store.dispatch({ type: 'quit_ask' });
        this.renderNow();
        return;
      }
      if (binding.action === 'copy_ref') this.copyRef(state);
      if (binding.action === 'view_number')
        this.store.dispatch({ type: 'view_apply', index: Number(name.slice(-1)) - 1 });
      else this.store.dispatch({ type: 'key', action: binding.action });
    } else if (
      (scope === 'filter' ||
        scope === 'help' ||
        scope === 'code' ||
        scope === 'picker' ||
        scope === 'input' ||
        scope === 'comment') &&
      ch &&
      name.length === 1
    ) {
      this.store.dispatch({ type: 'input', ch });
    } else if (
      name === 'space' &&
      (scope === 'filter' || scope === 'picker' || scope === 'input' || scope === 'comment')
    ) {
      this.store.dispatch({ type: 'input', ch: ' ' });
    } else {
      return;
    }
    // a key press draws at once unless a frame was drawn a moment ago; data changes wait for the frame
    if (Date.now() - this.lastRender >= FRAME_MS) this.renderNow();
  }

  // Public for tests. With no prompt open pasted text is dropped, never read as keys.
  onPaste(text: string): void {
    if (this.destroyed) return;
    const scope = activeScope(this.store.state);
    // a comment keeps the pasted lines (the line editor's multi-line mode); other prompts join them
    if (
      scope === 'filter' ||
      scope === 'help' ||
      scope === 'code' ||
      scope === 'picker' ||
      scope === 'input' ||
      scope === 'comment'
    ) {
      this.store.dispatch({ type: 'input', ch: text });
    } else {
      this.store.dispatch({ type: 'status', text: 'paste ignored: no prompt is open', tone: 'warn' });
    }
    this.renderNow();
  }

  onMouse(data: MouseEvent): void {
    if (this.destroyed) return;
    const state = this.store.state;
    const hit = this.layout.hit(state, data.x, data.y);
    const key = (action: KeyAction, times = 1) => {
      for (let i = 0; i < times; i++) this.store.dispatch({ type: 'key', action });
    };
    if (data.action === 'wheelup' || data.action === 'wheeldown') {
      const down = data.action === 'wheeldown';
      if (state.dialog?.kind === 'help') key(down ? 'cursor_down' : 'cursor_up', WHEEL_ROWS);
      else if (state.dialog) return;
      else if (hit?.kind === 'detail') key(down ? 'detail_scroll_down' : 'detail_scroll_up');
      else key(down ? 'cursor_down' : 'cursor_up', WHEEL_ROWS);
    } else if (data.action === 'mousedown' && data.button === 'left' && hit) {
      if (hit.kind === 'tab' && !state.dialog) key(`tab_${hit.tab}`);
      else if (hit.kind === 'header' && !state.dialog) this.store.dispatch({ type: 'sort_column', column: hit.column });
      else if (hit.kind === 'button') key(hit.which === 'yes' ? 'dialog_yes' : 'dialog_no');
      else if (hit.kind === 'row' && !state.dialog && !state.failure) {
        if (hit.index === selectedIndex(state) && activeScope(state) === 'frontier') key('detail_open');
        else this.store.dispatch({ type: 'select', index: hit.index });
      } else return;
    } else {
      return;
    }
    this.renderNow();
  }

  private copyRef(state: State): void {
    const ref = selectedItem(state)?.item_id ?? selectedMachine(state)?.machine_id ?? null;
    if (!ref) return;
    const payload = Buffer.from(ref).toString('base64');
    // OSC 52: the terminal (and tmux with set-clipboard on) puts the text on the system clipboard
    this.options.screen.program.output.write(`\x1b]52;c;${payload}\x07`);
    this.store.dispatch({ type: 'status', text: `copied ${ref} (OSC 52 clipboard)`, tone: 'ok' });
  }

  // At most one frame per FRAME_MS, without holding a lone change back for one.
  private schedule(): void {
    if (this.timer || this.destroyed) return;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.renderNow();
      },
      Math.max(0, this.lastRender + FRAME_MS - Date.now()),
    );
  }

  renderNow(): void {
    if (this.destroyed) return;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const state = this.store.state;
    const { pageSize, helpScrollMax, changed } = this.layout.update(state);
    // blessed's render walks every cell of every region, so a change that leaves every region as drawn draws nothing
    // (docs/adr/0045).
    if (changed || this.mustDraw) {
      this.mustDraw = false;
      this.options.screen.render();
      this.lastRender = Date.now();
      this.options.onFrame?.(state);
    }
    // the view knows where the last page is
    const scrolled = state.dialog?.kind === 'help' || state.dialog?.kind === 'history' ? state.dialog : null;
    if (
      pageSize !== state.pageSize ||
      (scrolled && helpScrollMax !== undefined && (scrolled.scroll ?? 0) > helpScrollMax)
    ) {
      this.store.dispatch({ type: 'layout', pageSize, helpScrollMax });
    }
  }
}
