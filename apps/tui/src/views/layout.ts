import type * as blessed from 'blessed';

import { detailVisible } from '../state/selectors';
import { isFrontierTab, State, Tab } from '../state/state';
import { footerLine, headerLine, statusLine, tabSpans, tabsLine } from './chrome';
import { patchBlessedUnicode } from './blessed-unicode';
import { detailPane } from './detail';
import { Theme } from './format';
import {
  listHeaderLine,
  frontierColumnAt,
  ListRender,
  renderConnectedRows,
  renderEventRows,
  renderFrontierRows,
  renderMachineRows,
} from './lists';
import { emptyLines, failureLines, OverlayContent, overlayFor } from './overlays';
import { Role } from './theme';
import * as widgets from './widgets';

export const SIDE_BY_SIDE_MIN_WIDTH = 120;

export interface Geometry {
  width: number;
  height: number;
  listWidth: number;
  listRows: number;
  detail: { left: number; top: number; width: number; height: number } | null;
}

export function geometry(state: State, width: number, height: number): Geometry {
  const bodyTop = 2;
  const body = Math.max(3, height - 4);
  if (!detailVisible(state) || state.failure) {
    return { width, height, listWidth: width, listRows: body - 1, detail: null };
  }
  if (width >= SIDE_BY_SIDE_MIN_WIDTH) {
    const dw = Math.floor(width * 0.42);
    return {
      width,
      height,
      listWidth: width - dw,
      listRows: body - 1,
      detail: { left: width - dw, top: bodyTop, width: dw, height: body },
    };
  }
  const listHeight = Math.max(4, Math.floor(body * 0.42));
  return {
    width,
    height,
    listWidth: width,
    listRows: listHeight - 1,
    detail: { left: 0, top: bodyTop + listHeight, width, height: body - listHeight },
  };
}

export type Hit =
  | { kind: 'tab'; tab: Tab }
  | { kind: 'row'; index: number }
  | { kind: 'header'; column: string }
  | { kind: 'detail' }
  | { kind: 'button'; which: 'yes' | 'no' }
  | { kind: 'overlay' };

function borderStyle(theme: Theme, role: Role): { fg?: string | number } {
  const c = theme.palette[role];
  if (!theme.color || c === 'default') return {};
  return { fg: /^\d+$/.test(c) ? Number(c) : c };
}

// One box per region; every frame sets only the content of what changed. No blessed list widget: the rows are a
// virtual list written into one box.
export class Layout {
  private readonly header: blessed.Widgets.BoxElement;
  private readonly tabs: blessed.Widgets.BoxElement;
  private readonly listHeader: blessed.Widgets.BoxElement;
  private readonly list: blessed.Widgets.BoxElement;
  private readonly detail: blessed.Widgets.BoxElement;
  private readonly status: blessed.Widgets.BoxElement;
  private readonly footer: blessed.Widgets.BoxElement;
  private readonly overlay: blessed.Widgets.BoxElement;
  private readonly offsets: Record<Tab, number> = { runnable: 0, blocked: 0, frozen: 0, machines: 0, events: 0 };
  private readonly contents = new Map<blessed.Widgets.BoxElement, string>();
  private detailCache: { key: string; lines: string[]; selected: number | null } | null = null;
  private detailSelected: number | null = null;
  private lastReady: { ref: string; width: number; lines: string[] } | null = null;
  // an update that changed neither text nor place, size, label or visibility leaves the screen as the last frame drew it
  private changed = false;
  private lastShape = '';
  private readonly labels = new Map<blessed.Widgets.BoxElement, string>();

  geometry: Geometry | null = null;
  overlayContent: OverlayContent | null = null;

  constructor(
    private readonly screen: blessed.Widgets.Screen,
    private readonly theme: Theme,
  ) {
    patchBlessedUnicode();
    sendMiddleDotAsText(screen);
    // blessed misreads the colours of terminals whose terminfo it cannot parse (tmux-256color: 8, so gray is black)
    const tput = (screen as unknown as { tput: { colors: number } }).tput;
    if (theme.color && tput.colors < theme.depth) tput.colors = theme.depth;
    const box = (options: blessed.Widgets.BoxOptions) =>
      widgets.box({ parent: screen, tags: true, wrap: false, ...options } as blessed.Widgets.BoxOptions);
    this.header = box({ top: 0, left: 0, width: '100%', height: 1 });
    this.tabs = box({ top: 1, left: 0, width: '100%', height: 1 });
    this.listHeader = box({ top: 2, left: 0, width: '100%', height: 1 });
    this.list = box({ top: 3, left: 0, width: '100%', height: 1 });
    this.detail = box({
      top: 3,
      left: 0,
      width: 10,
      height: 3,
      border: { type: 'line' },
      label: ' Detail ',
      hidden: true,
      style: { border: borderStyle(theme, 'gray') },
    });
    this.status = box({ bottom: 1, left: 0, width: '100%', height: 1 });
    this.footer = box({ bottom: 0, left: 0, width: '100%', height: 1 });
    this.overlay = box({
      top: 'center',
      left: 'center',
      width: 40,
      height: 5,
      border: { type: 'line' },
      hidden: true,
      style: { border: borderStyle(theme, 'cyan') },
    });
  }

  private label(el: blessed.Widgets.BoxElement, text: string): void {
    if (this.labels.get(el) === text) return;
    this.labels.set(el, text);
    el.setLabel(text);
  }

  private set(el: blessed.Widgets.BoxElement, content: string): void {
    if (this.contents.get(el) === content) return;
    this.changed = true;
    this.contents.set(el, content);
    el.setContent(content);
  }

  update(state: State): { pageSize: number; helpScrollMax?: number; changed: boolean } {
    this.changed = false;
    const width = Math.max(20, (this.screen.width as number) || 80);
    const height = Math.max(6, (this.screen.height as number) || 24);
    const g = geometry(state, width, height);
    this.geometry = g;
    const t = this.theme;

    this.set(this.header, headerLine(state, width, t));
    this.set(this.tabs, tabsLine(state, width));
    this.set(this.status, statusLine(state, width, t));
    this.set(this.footer, footerLine(state, width, t));

    this.listHeader.width = g.listWidth;
    this.list.width = g.listWidth;
    this.list.height = Math.max(1, g.listRows);

    if (state.failure || (state.projects !== null && state.projects.length === 0)) {
      this.set(this.listHeader, '');
      this.list.height = Math.max(1, height - 4);
      this.set(this.list, (state.failure ? failureLines(state, width, t) : emptyLines(state, width, t)).join('\n'));
    } else {
      this.set(this.listHeader, listHeaderLine(state, state.tab, g.listWidth, t));
      const r = this.rows(state, g);
      this.offsets[state.tab] = r.offset;
      this.set(this.list, r.lines.length > 0 ? r.lines.join('\n') : this.emptyList(state));
    }

    if (g.detail) {
      const d = g.detail;
      this.detail.left = d.left;
      this.detail.top = d.top;
      this.detail.width = d.width;
      this.detail.height = d.height;
      const inner = Math.max(1, d.height - 2);
      let lines = this.detailContent(state, d.width - 2);
      // no flicker on j/k: until the new item's explain arrives, the previous pane stays, labelled as loading
      const ready = !state.detail || state.detail.explain !== null || state.detail.errors.length > 0;
      let waiting: string | null = null;
      if (ready) this.lastReady = { ref: state.detail?.ref ?? '', width: d.width, lines };
      else if (this.lastReady && this.lastReady.width === d.width && this.lastReady.ref !== state.detail?.ref) {
        waiting = state.detail?.ref ?? null;
        lines = this.lastReady.lines;
      }
      const maxScroll = Math.max(0, lines.length - inner);
      let scroll = waiting ? 0 : Math.min(state.detailScroll, maxScroll);
      const selected = waiting ? null : this.detailSelected;
      if (selected !== null && selected < scroll) scroll = selected;
      else if (selected !== null && selected >= scroll + inner) scroll = Math.min(maxScroll, selected - inner + 1);
      const shown = lines.slice(scroll, scroll + inner);
      this.label(
        this.detail,
        waiting
          ? ` Detail (loading ${waiting}…) `
          : maxScroll > 0
            ? ` Detail ${scroll + 1}-${scroll + shown.length}/${lines.length} (J/K) `
            : ' Detail ',
      );
      this.set(this.detail, shown.join('\n'));
      this.detail.show();
    } else {
      this.detail.hide();
      this.lastReady = null;
    }

    const overlay = state.failure ? null : overlayFor(state, width, height, t);
    this.overlayContent = overlay;
    if (overlay) {
      this.overlay.width = Math.min(width, overlay.width);
      this.overlay.height = Math.min(height, overlay.lines.length + 2);
      this.label(this.overlay, overlay.title);
      this.set(this.overlay, overlay.lines.join('\n'));
      this.overlay.show();
      this.overlay.setFront();
    } else {
      this.overlay.hide();
    }
    const shape = [
      `${width}x${height}`,
      ...[this.listHeader, this.list, this.detail, this.overlay].map((el) =>
        el.hidden ? '-' : `${el.left},${el.top},${el.width},${el.height},${this.labels.get(el) ?? ''}`,
      ),
    ].join('|');
    const changed = this.changed || shape !== this.lastShape;
    this.lastShape = shape;
    return { pageSize: Math.max(1, g.listRows), helpScrollMax: overlay?.scrollMax, changed };
  }

  hit(state: State, x: number, y: number): Hit | null {
    const g = this.geometry;
    if (!g) return null;
    const o = this.overlayContent;
    if (o && !this.overlay.hidden) {
      const left = this.overlay.aleft as number;
      const top = this.overlay.atop as number;
      const inside =
        x >= left && x < left + (this.overlay.width as number) && y >= top && y < top + (this.overlay.height as number);
      if (!inside) return null;
      const b = o.buttons;
      if (b && y === top + 1 + b.row) {
        const cx = x - left - 1;
        if (cx >= b.no[0] && cx < b.no[1]) return { kind: 'button', which: 'no' };
        if (cx >= b.yes[0] && cx < b.yes[1]) return { kind: 'button', which: 'yes' };
      }
      return { kind: 'overlay' };
    }
    if (y === 1) {
      const span = tabSpans(state, g.width).find((s) => x >= s.start && x < s.end);
      return span ? { kind: 'tab', tab: span.tab } : null;
    }
    if (y === 2 && x < g.listWidth) {
      const column = frontierColumnAt(state, g.listWidth, x, this.theme);
      return column ? { kind: 'header', column } : null;
    }
    const d = g.detail;
    if (d && x >= d.left && x < d.left + d.width && y >= d.top && y < d.top + d.height) return { kind: 'detail' };
    if (y >= 3 && y < 3 + g.listRows && x < g.listWidth) {
      const index = this.offsets[state.tab] + (y - 3);
      return { kind: 'row', index };
    }
    return null;
  }

  private detailContent(state: State, width: number): string[] {
    const key = `${state.detail?.ref}:${state.detail?.version}:${width}:${state.cursors[state.tab].key}:${state.frontier ? 1 : 0}:${Math.floor(state.now / 60000)}:${Object.keys(state.claims).length}:${state.edgeCursor?.key ?? ''}`;
    if (this.detailCache?.key !== key) this.detailCache = { key, ...detailPane(state, width, this.theme) };
    this.detailSelected = this.detailCache.selected;
    return this.detailCache.lines;
  }

  private rows(state: State, g: Geometry): ListRender {
    const height = Math.max(1, g.listRows);
    const prev = this.offsets[state.tab];
    if (isFrontierTab(state.tab)) return renderFrontierRows(state, state.tab, g.listWidth, height, prev, this.theme);
    if (state.tab === 'machines') {
      if (state.machinesView === 'connected') return renderConnectedRows(state, g.listWidth, height, prev);
      return renderMachineRows(state, g.listWidth, height, prev, this.theme);
    }
    return renderEventRows(state, g.listWidth, height, prev, this.theme);
  }

  private emptyList(state: State): string {
    if (isFrontierTab(state.tab)) {
      if (!state.frontier) return ' loading…';
      if (state.filter) return ` no ${state.tab} item matches "${state.filter.replace(/[{}]/g, '')}"`;
      return ` no ${state.tab} items`;
    }
    if (state.tab === 'machines') {
      return state.machinesView === 'connected'
        ? ' no connected machines you may manage (m shows pending requests)'
        : ' no pending machine requests (a machine asks with `svc connect <url>`; m shows connected machines)';
    }
    if (state.filter) return ` no event matches "${state.filter.replace(/[{}]/g, '')}"`;
    return state.showReads || state.events.length === 0
      ? ' no events yet'
      : ' no events yet besides FrontierComputed reads (f shows them)';
  }
}

// blessed sends every character its terminfo's `acsc` maps in the line-drawing set: the header's `·` went out as ACS
// `~`, which tmux captures and copies read as `~`. The borders keep the line-drawing set.
function sendMiddleDotAsText(screen: blessed.Widgets.Screen): void {
  const tput = (screen as unknown as { tput?: { acscr?: Record<string, string> } }).tput;
  if (tput?.acscr) delete tput.acscr['·'];
}
