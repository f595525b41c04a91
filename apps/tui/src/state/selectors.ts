import type { Scope } from '../keys/keymap';
import { changeWhat, changeWho } from '@app/client';

import { haystack, parseFilter, passes, SortKey, sortRows } from '@app/contracts';
import type { FrontierWindowMeta } from '@app/contracts';

import type { ChangeRecordWire, ClaimHolder, ConnectedMachineWire, EventWire, FrontierItemWire } from '../wire';
import { conductRunnable } from './answer-counts';
import { FrontierTab, isFrontierTab, State, Tab } from './state';

const EMPTY: readonly FrontierItemWire[] = Object.freeze([]);

export function bucket(state: State, tab: FrontierTab): readonly FrontierItemWire[] {
  return state.frontier?.[tab] ?? EMPTY;
}

// Where the rows shown sit when the TUI holds a window of the answer (the daemon filtered and sorted them), else null.
export function windowOf(state: State): FrontierWindowMeta | null {
  const f = state.frontier;
  return f && 'window' in f ? f.window : null;
}

// A list's length in the answer, unfiltered.
export function bucketTotal(state: State, tab: FrontierTab): number {
  const w = windowOf(state);
  return w ? w.totals[tab] : bucket(state, tab).length;
}

interface FilterView {
  filter: string;
  needle: string;
  sort: string;
  claims: Record<string, ClaimHolder> | null;
  actor: string | null;
  indices: Int32Array | null;
}

// Shared by the reducer and the views, so a key press costs O(1) and one more typed character rescans only the rows
// that matched before.
const views = new WeakMap<readonly FrontierItemWire[], FilterView>();
const haystacks = new WeakMap<readonly FrontierItemWire[], string[]>();

function haystackOf(rows: readonly FrontierItemWire[]): string[] {
  let h = haystacks.get(rows);
  if (!h) {
    h = rows.map((r) => haystack(r.item_id, r.title));
    haystacks.set(rows, h);
  }
  return h;
}

const refOfRow = (r: FrontierItemWire) => r.item_id;

function mine(ref: string, claims: Record<string, ClaimHolder> | null, actor: string | null): boolean {
  const holder = claims?.[ref];
  return !!holder && !!actor && holder.actor === actor;
}

function filterView(
  rows: readonly FrontierItemWire[],
  filter: string,
  state?: Pick<State, 'sort' | 'sortDesc' | 'claims' | 'actor'>,
): FilterView {
  const cached = views.get(rows);
  const key: SortKey = state?.sort ?? 'rank';
  const desc = state?.sortDesc ?? false;
  const sort = desc ? `${key} desc` : key;
  const parsed = parseFilter(filter);
  const claims = parsed.me ? (state?.claims ?? null) : null;
  const actor = parsed.me ? (state?.actor ?? null) : null;
  if (cached && cached.filter === filter && cached.sort === sort && cached.claims === claims && cached.actor === actor)
    return cached;
  const needle = filter.trim().toLowerCase();
  let indices: Int32Array | null = null;
  if (parsed.plain && needle) {
    const hay = haystackOf(rows);
    let out: number[] = [];
    if (
      cached?.indices &&
      cached.needle &&
      cached.sort === sort &&
      parseFilter(cached.filter).plain &&
      needle.includes(cached.needle)
    ) {
      // a longer needle only matches rows the shorter one matched
      for (const i of cached.indices) if (hay[i].includes(needle)) out.push(i);
    } else {
      for (let i = 0; i < hay.length; i++) if (hay[i].includes(needle)) out.push(i);
      out = sortRows(rows, out, key, desc, refOfRow);
    }
    indices = Int32Array.from(out);
  } else if (!parsed.plain || sort !== 'rank') {
    const hay = haystackOf(rows);
    const out: number[] = [];
    for (let i = 0; i < hay.length; i++) {
      if (!parsed.words.every((w) => hay[i].includes(w))) continue;
      if (!parsed.plain && !passes(rows[i], parsed, mine(rows[i].item_id, claims, actor))) continue;
      out.push(i);
    }
    indices = Int32Array.from(sortRows(rows, out, key, desc, refOfRow));
  }
  const view = { filter, needle, sort, claims, actor, indices };
  views.set(rows, view);
  return view;
}

export function effectiveFilter(state: State, tab: Tab): string {
  return isFrontierTab(tab) || tab === 'events' ? state.filter : '';
}

// Computed once per (events, changes, reads shown, filter, actor names). A change row's key is `h<id>`.
export type EventRow = EventWire & { change?: ChangeRecordWire };

const eventViews = new WeakMap<
  readonly EventWire[],
  {
    changes: readonly ChangeRecordWire[];
    showReads: boolean;
    filter: string;
    names: Record<string, string>;
    rows: EventRow[];
  }
>();
const changeRows = new WeakMap<ChangeRecordWire, EventRow>();

export function actorLabel(state: State, id: number | null): string {
  if (id === null) return '';
  return state.actorNames[String(id)] ?? `#${id}`;
}

export function changeRow(c: ChangeRecordWire): EventRow {
  let row = changeRows.get(c);
  if (!row) {
    row = {
      id: `h${c.id}`,
      name: `${c.object} ${c.action}`,
      kind: 'change',
      project: c.project,
      item_id: c.item_id ?? (c.object === 'item' ? c.object_ref : null),
      actor_id: null,
      session_id: c.session_id,
      payload: {},
      created_at: c.at,
      change: c,
    };
    changeRows.set(c, row);
  }
  return row;
}

function timeOf(iso: string): number {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? 0 : t;
}

function mergeByTime(events: readonly EventWire[], changes: readonly ChangeRecordWire[]): EventRow[] {
  if (changes.length === 0) return events as EventRow[];
  const out: EventRow[] = [];
  let i = 0;
  let j = 0;
  while (i < events.length || j < changes.length) {
    if (j >= changes.length || (i < events.length && timeOf(events[i].created_at) > timeOf(changes[j].at))) {
      out.push(events[i++]);
    } else {
      out.push(changeRow(changes[j++]));
    }
  }
  return out;
}

function rowHaystack(state: State, e: EventRow): string {
  const c = e.change;
  if (c) {
    return `${e.name}\u0000${e.item_id ?? ''}\u0000${c.project ?? ''}\u0000${changeWho(c)}\u0000${changeWhat(c)}\u0000${c.path}\u0000${c.object_ref ?? ''}`;
  }
  return `${e.name}\u0000${e.item_id ?? ''}\u0000${e.project ?? ''}\u0000${actorLabel(state, e.actor_id)}\u0000${JSON.stringify(e.payload ?? {})}`;
}

export function visibleEvents(state: State): EventRow[] {
  const cached = eventViews.get(state.events);
  const filter = effectiveFilter(state, 'events');
  if (
    cached &&
    cached.changes === state.changes &&
    cached.showReads === state.showReads &&
    cached.filter === filter &&
    cached.names === state.actorNames
  ) {
    return cached.rows;
  }
  const needle = filter.trim().toLowerCase();
  const rows = mergeByTime(state.events, state.changes).filter((e) => {
    if (!state.showReads && e.name === 'FrontierComputed') return false;
    if (!needle) return true;
    return rowHaystack(state, e).toLowerCase().includes(needle);
  });
  eventViews.set(state.events, {
    changes: state.changes,
    showReads: state.showReads,
    filter,
    names: state.actorNames,
    rows,
  });
  return rows;
}

// Rows that arrived above the one the user last saw at the top, while they were scrolled away (0: following).
export function unseenEvents(state: State): number {
  if (state.eventsSeen === null) return 0;
  const at = indexOfKey(state, 'events', state.eventsSeen);
  return at > 0 ? at : 0;
}

export function pickerProjects(state: State, d: { filter?: string }) {
  const all = state.projects ?? [];
  const needle = (d.filter ?? '').trim().toLowerCase();
  return needle ? all.filter((p) => `${p.id}\u0000${p.name}`.toLowerCase().includes(needle)) : all;
}

export function connectedKey(m: ConnectedMachineWire): string {
  return `${m.machine_id}\u0000${m.token_prefix}`;
}

export function selectedConnected(state: State): ConnectedMachineWire | null {
  if (state.tab !== 'machines' || state.machinesView !== 'connected') return null;
  const i = selectedIndex(state);
  return i < 0 ? null : (state.connected[i] ?? null);
}

export function selectedEvent(state: State): EventRow | null {
  if (state.tab !== 'events') return null;
  const i = selectedIndex(state);
  return i < 0 ? null : (visibleEvents(state)[i] ?? null);
}

export function rowCount(state: State, tab: Tab): number {
  if (isFrontierTab(tab)) {
    const w = windowOf(state);
    if (w) return tab === w.list ? w.total : w.totals[tab];
    const rows = bucket(state, tab);
    const view = filterView(rows, effectiveFilter(state, tab), state);
    return view.indices ? view.indices.length : rows.length;
  }
  if (tab === 'machines') return state.machinesView === 'connected' ? state.connected.length : state.machines.length;
  return visibleEvents(state).length;
}

export function bucketIndexAt(state: State, tab: FrontierTab, i: number): number {
  const w = windowOf(state);
  if (w) return tab === w.list ? (w.ranks[i - w.offset] ?? i) : i;
  const view = filterView(bucket(state, tab), effectiveFilter(state, tab), state);
  return view.indices ? view.indices[i] : i;
}

// null: past the rows, or (a window) not loaded yet
export function frontierRowAt(state: State, tab: FrontierTab, i: number): FrontierItemWire | null {
  const rows = bucket(state, tab);
  const w = windowOf(state);
  if (w) return tab === w.list ? (rows[i - w.offset] ?? null) : null;
  const index = bucketIndexAt(state, tab, i);
  return index === undefined ? null : (rows[index] ?? null);
}

export function keyAt(state: State, tab: Tab, i: number): string | null {
  if (i < 0) return null;
  if (isFrontierTab(tab)) return frontierRowAt(state, tab, i)?.item_id ?? null;
  if (tab === 'machines') {
    if (state.machinesView === 'connected') {
      const m = state.connected[i];
      return m ? connectedKey(m) : null;
    }
    return state.machines[i]?.request_id ?? null;
  }
  return visibleEvents(state)[i]?.id ?? null;
}

// A linear scan without allocation: called once per tab when the rows change, never per key press.
export function indexOfKey(state: State, tab: Tab, key: string): number {
  if (isFrontierTab(tab)) {
    const rows = bucket(state, tab);
    const w = windowOf(state);
    if (w) {
      const at = tab === w.list ? rows.findIndex((r) => r.item_id === key) : -1;
      return at < 0 ? -1 : w.offset + at;
    }
    const view = filterView(rows, effectiveFilter(state, tab), state);
    if (view.indices) {
      for (let i = 0; i < view.indices.length; i++) if (rows[view.indices[i]].item_id === key) return i;
      return -1;
    }
    for (let i = 0; i < rows.length; i++) if (rows[i].item_id === key) return i;
    return -1;
  }
  if (tab === 'machines') {
    if (state.machinesView === 'connected') return state.connected.findIndex((m) => connectedKey(m) === key);
    return state.machines.findIndex((m) => m.request_id === key);
  }
  return visibleEvents(state).findIndex((e) => e.id === key);
}

export function selectedIndex(state: State, tab: Tab = state.tab): number {
  const n = rowCount(state, tab);
  return n === 0 ? -1 : Math.min(Math.max(state.cursors[tab].index, 0), n - 1);
}

export function selectedItem(state: State): FrontierItemWire | null {
  if (!isFrontierTab(state.tab)) return null;
  const i = selectedIndex(state);
  return i < 0 ? null : frontierRowAt(state, state.tab, i);
}

export function selectedMachine(state: State) {
  if (state.tab !== 'machines' || state.machinesView !== 'pending') return null;
  const i = selectedIndex(state);
  return i < 0 ? null : (state.machines[i] ?? null);
}

const eligibleSets = new WeakMap<object, Set<string>>();

export function conductEligible(state: State): Set<string> {
  const f = state.frontier;
  if (!f) return new Set();
  let set = eligibleSets.get(f);
  if (!set) {
    set = new Set(f.conduct_eligible.map((i) => i.item_id));
    eligibleSets.set(f, set);
  }
  return set;
}

// Conduct rows not in conduct_eligible, from the answer's carried count (answer-counts.ts).
export function wipSuppressed(state: State): number {
  const f = state.frontier;
  if (!f) return 0;
  const w = windowOf(state);
  if (w) return w.wip_suppressed;
  let eligibleConduct = 0;
  for (const item of f.conduct_eligible) if (item.adapter === 'conduct') eligibleConduct++;
  // (a first page of the answer may hold eligible rows past its runnable ones: never below none)
  return Math.max(0, conductRunnable(f) - eligibleConduct);
}

export function claimOf(state: State, ref: string): ClaimHolder | null {
  return state.claims[ref] ?? null;
}

export function activeScope(state: State): Scope {
  if (state.failure) return 'failure';
  const d = state.dialog;
  if (d) {
    if (d.kind === 'help') return 'help';
    if (d.kind === 'charge') return 'charge';
    if (d.kind === 'code') return 'code';
    if (d.kind === 'confirm-deny') return 'confirm';
    if (d.kind === 'confirm-approve') return 'approve';
    if (d.kind === 'picker') return 'picker';
    if (d.kind === 'input') return d.purpose === 'comment' ? 'comment' : 'input';
    if (d.kind === 'triage-confirm') return 'decide';
    if (d.kind === 'refusal') return 'refusal';
    if (d.kind === 'confirm-revoke') return 'revoke';
    if (d.kind === 'view') return 'view';
    if (d.kind === 'history') return 'history';
    return d.filtering ? 'filter' : 'projects';
  }
  if (state.filtering) return 'filter';
  if (state.projects !== null && state.projects.length === 0) return 'empty';
  if (isFrontierTab(state.tab)) return 'frontier';
  return state.tab;
}

export function detailVisible(state: State): boolean {
  return isFrontierTab(state.tab) && state.detailOpen && !state.paneHidden;
}

export function formatAge(iso: string | null | undefined, now: number): string {
  if (!iso) return '';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const s = Math.max(0, Math.floor((now - t) / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (d < 14) return `${d}d`;
  if (d < 60) return `${Math.floor(d / 7)}w`;
  if (d < 730) return `${Math.floor(d / 30)}mo`;
  return `${Math.floor(d / 365)}y`;
}

export function formatWhen(iso: string | null | undefined, now: number): string {
  if (!iso) return '';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const d = new Date(t);
  const pad = (n: number) => String(n).padStart(2, '0');
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  const today = new Date(now).toDateString() === d.toDateString();
  const local = today ? time : `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${time}`;
  const rel = t > now ? `in ${formatAge(new Date(now - (t - now)).toISOString(), now)}` : `${formatAge(iso, now)} ago`;
  return `${rel} (${local})`;
}

export function formatCountdown(iso: string, now: number): string {
  const left = Math.floor((Date.parse(iso) - now) / 1000);
  if (Number.isNaN(left)) return '';
  if (left <= 0) return 'expired';
  const h = Math.floor(left / 3600);
  const m = Math.floor((left % 3600) / 60);
  const s = left % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}
