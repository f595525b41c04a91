import { changeWhat, changeWho } from '@app/client';

import {
  actorLabel,
  bucketIndexAt,
  bucketTotal,
  claimOf,
  conductEligible,
  formatAge,
  formatCountdown,
  frontierRowAt,
  rowCount,
  EventRow,
  selectedIndex,
  unseenEvents,
  visibleEvents,
} from '../state/selectors';
import type { SortKey } from '@app/contracts';
import { widestRef } from '../state/answer-counts';
import { FrontierTab, isFrontierTab, State, Tab } from '../state/state';
import type {
  ClaimHolder,
  ConnectedMachineWire,
  EventWire,
  FrontierItemWire,
  MachineAuthorizationRequest,
} from '../wire';
import { bold, esc, fit, inverse, paint, PLAIN, PRIORITY_COLOR, PRIORITY_SHORT, Theme } from './format';

export function scrollWindow(selected: number, count: number, height: number, previous: number): number {
  if (height <= 0 || count <= height) return 0;
  let offset = Math.min(Math.max(previous, 0), count - height);
  if (selected < offset) offset = selected;
  else if (selected >= offset + height) offset = selected - height + 1;
  return offset;
}

interface Column {
  id: string;
  title: string;
  width: number;
  align: 'left' | 'right';
}

const FRONTIER_COLUMNS = (rankWidth: number, refWidth: number, tab?: FrontierTab): Column[] => [
  { id: 'rank', title: '#', width: rankWidth, align: 'right' },
  { id: 'ref', title: 'ref', width: refWidth, align: 'left' },
  { id: 'mark', title: ' ', width: 1, align: 'left' },
  { id: 'title', title: 'title', width: 0, align: 'left' },
  { id: 'priority', title: 'pri', width: 4, align: 'left' },
  { id: 'status', title: 'status', width: 14, align: 'left' },
  // the Blocked tab says why at a glance: the first blocker (+N more) and the first reason in short
  ...(tab === 'blocked'
    ? ([
        { id: 'blockedby', title: 'blocked by', width: Math.max(10, refWidth + 4), align: 'left' },
        { id: 'reason', title: 'reason', width: 20, align: 'left' },
      ] as Column[])
    : []),
  { id: 'adapter', title: 'adapter', width: 8, align: 'left' },
  { id: 'depth', title: 'dep', width: 3, align: 'right' },
  { id: 'unblocks', title: 'unb', width: 3, align: 'right' },
  { id: 'age', title: 'age', width: 4, align: 'right' },
  { id: 'claim', title: 'claimed by', width: 16, align: 'left' },
];

export const FRONTIER_COLUMN_IDS: readonly string[] = FRONTIER_COLUMNS(3, 8, 'blocked').map((c) => c.id);
const BLOCKED_COLUMNS: readonly string[] = ['blockedby', 'reason'];

const DROP_ORDER = ['claim', 'unblocks', 'depth', 'age', 'adapter'];
const MIN_TITLE = 18;
// the Blocked tab's why-columns give way first while the title would be narrower than this (a title matters more)
const MIN_TITLE_WITH_WHY = 28;

export function refWidthOf(state: State): number {
  return state.frontier ? widestRef(state.frontier) : 8;
}

// `only`: the columns the user chose (tui.json), else all. The Blocked tab's own columns (blocked by, reason) show
// there unless `only` names one of them.
export function frontierColumns(
  width: number,
  count: number,
  refWidth = 8,
  only?: readonly string[],
  tab?: FrontierTab,
): Column[] {
  const rankWidth = Math.max(3, String(count).length);
  const namesBlocked = !!only && BLOCKED_COLUMNS.some((id) => only.includes(id));
  let cols = FRONTIER_COLUMNS(rankWidth, refWidth, tab).filter(
    (c) => !only || only.includes(c.id) || (!namesBlocked && BLOCKED_COLUMNS.includes(c.id)),
  );
  const fixed = (cs: Column[]) => 1 + cs.reduce((sum, c) => sum + c.width + 1, 0);
  for (const drop of ['reason', 'blockedby']) {
    if (!cols.some((c) => c.id === drop)) continue;
    // only after the optional columns went, while the title still lacks room
    for (const other of DROP_ORDER) {
      if (width - fixed(cols) >= MIN_TITLE_WITH_WHY) break;
      cols = cols.filter((c) => c.id !== other);
    }
    if (width - fixed(cols) < MIN_TITLE_WITH_WHY) cols = cols.filter((c) => c.id !== drop);
  }
  for (const drop of DROP_ORDER) {
    if (width - fixed(cols) >= MIN_TITLE) break;
    cols = cols.filter((c) => c.id !== drop);
  }
  const title = cols.find((c) => c.id === 'title')!;
  title.width = Math.max(6, width - fixed(cols));
  return cols;
}

export function blockedByLabel(item: FrontierItemWire): string {
  const [first, ...rest] = item.blocked_by ?? [];
  if (first === undefined) return '';
  return rest.length > 0 ? `${first} +${rest.length}` : first;
}

export function shortReason(item: FrontierItemWire): string {
  const reasons = item.blocked_reasons ?? [];
  const blockers = item.blocked_by ?? [];
  const own = reasons.find((r) => !blockers.some((b) => r.includes(b)));
  return (own ?? reasons[0] ?? '').replace(/\s+/g, ' ').trim();
}

export function claimLabel(claim: ClaimHolder | null): string {
  if (!claim) return '';
  return claim.actor ? `${claim.actor} #${claim.session_id}` : `#${claim.session_id} ${claim.harness}`;
}

function cell(
  col: Column,
  item: FrontierItemWire,
  rank: number,
  state: State,
  eligible: Set<string>,
  theme: Theme,
): string {
  switch (col.id) {
    case 'rank':
      return esc(fit(String(rank), col.width, 'right'));
    case 'ref':
      return esc(fit(item.item_id, col.width));
    case 'mark': {
      // a glyph, not only a colour: * conduct-eligible, @ claimed, ! operator-blocked reason present
      const claimed = state.claims[item.item_id] !== undefined;
      if (eligible.has(item.item_id)) return paint(theme, '*', 'green');
      return claimed ? paint(theme, '@', 'magenta') : ' ';
    }
    case 'title':
      return esc(fit(item.title, col.width));
    case 'priority':
      return paint(
        theme,
        esc(fit(PRIORITY_SHORT[item.priority] ?? item.priority, col.width)),
        PRIORITY_COLOR[item.priority] ?? 'white',
      );
    case 'status':
      return esc(fit(item.status, col.width));
    case 'adapter':
      return paint(theme, esc(fit(item.adapter, col.width)), 'cyan');
    case 'depth':
      return esc(fit(String(item.downstream_depth), col.width, 'right'));
    case 'unblocks':
      return esc(fit(String(item.unblocks_count), col.width, 'right'));
    case 'blockedby':
      return paint(theme, esc(fit(blockedByLabel(item), col.width)), 'red');
    case 'reason':
      return esc(fit(shortReason(item), col.width));
    case 'age':
      return esc(fit(formatAge(item.created_at, state.now), col.width, 'right'));
    case 'claim':
      return paint(theme, esc(fit(claimLabel(claimOf(state, item.item_id)), col.width)), 'magenta');
    default:
      return '';
  }
}

function plainCell(col: Column, item: FrontierItemWire, rank: number, state: State, eligible: Set<string>): string {
  const c = cell(col, item, rank, state, eligible, PLAIN);
  return c;
}

export function frontierHeaderLine(
  width: number,
  count: number,
  theme: Theme,
  refWidth = 8,
  tab?: FrontierTab,
  sort?: SortKey,
  desc = false,
): string {
  const cols = frontierColumns(width, count, refWidth, theme.columns, tab);
  // a :sort other than the frontier's own order marks its column (the key's name is the column's id): ↓ in the key's
  // order, ↑ reversed
  const title = (c: Column) =>
    ((sort && sort !== 'rank') || desc) && c.id === (sort ?? 'rank')
      ? `${c.title.slice(0, Math.max(0, c.width - 1))}${desc ? '↑' : '↓'}`
      : c.title;
  return paint(theme, ` ${cols.map((c) => esc(fit(title(c), c.width, c.align))).join(' ')}`, 'gray');
}

export interface ListRender {
  lines: string[];
  offset: number;
}

// Only the rows in the viewport are formatted: the cost of a frame follows the height, not the backlog.
export function renderFrontierRows(
  state: State,
  tab: FrontierTab,
  width: number,
  height: number,
  previousOffset: number,
  theme: Theme,
): ListRender {
  const count = rowCount(state, tab);
  const selected = selectedIndex(state, tab);
  const offset = scrollWindow(Math.max(selected, 0), count, height, previousOffset);
  const cols = frontierColumns(width, bucketTotal(state, tab), refWidthOf(state), theme.columns, tab);
  const eligible = conductEligible(state);
  const marked = state.triage.marked.length > 0 ? new Set(state.triage.marked) : null;
  const lines: string[] = [];
  for (let i = offset; i < Math.min(count, offset + height); i++) {
    const item = frontierRowAt(state, tab, i);
    if (!item) {
      // a window of the answer: this row is on its way
      lines.push(paint(theme, i === selected ? '›…' : ' …', 'gray'));
      continue;
    }
    const rank = bucketIndexAt(state, tab, i) + 1;
    if (i === selected) {
      const text = cols.map((c) => plainCell(c, item, rank, state, eligible)).join(' ');
      // a marked row under the cursor keeps its + (the inverted row already shows the cursor)
      lines.push(inverse(`${marked?.has(item.item_id) ? '+' : '›'}${text}`));
    } else {
      const lead = marked?.has(item.item_id) ? paint(theme, '+', 'yellow') : ' ';
      lines.push(`${lead}${cols.map((c) => cell(c, item, rank, state, eligible, theme)).join(' ')}`);
    }
  }
  return { lines, offset };
}

const MACHINE_COLUMNS: Column[] = [
  { id: 'name', title: 'machine', width: 18, align: 'left' },
  { id: 'id', title: 'machine id', width: 0, align: 'left' },
  { id: 'address', title: 'from', width: 16, align: 'left' },
  { id: 'age', title: 'age', width: 4, align: 'right' },
  { id: 'expires', title: 'expires in', width: 10, align: 'right' },
  { id: 'claimed', title: 'yours', width: 5, align: 'left' },
];

function machineColumns(width: number): Column[] {
  const cols = MACHINE_COLUMNS.map((c) => ({ ...c }));
  const fixed = 1 + cols.reduce((s, c) => s + c.width + 1, 0);
  cols[1].width = Math.max(8, width - fixed);
  return cols;
}

const CONNECTED_COLUMNS: Column[] = [
  { id: 'name', title: 'machine', width: 18, align: 'left' },
  { id: 'id', title: 'machine id', width: 0, align: 'left' },
  { id: 'actor', title: 'person', width: 12, align: 'left' },
  { id: 'prefix', title: 'credential', width: 12, align: 'left' },
  { id: 'used', title: 'used', width: 4, align: 'right' },
];

function connectedColumns(width: number): Column[] {
  const cols = CONNECTED_COLUMNS.map((c) => ({ ...c }));
  const fixed = 1 + cols.reduce((s, c) => s + c.width + 1, 0);
  cols[1].width = Math.max(8, width - fixed);
  return cols;
}

function connectedCell(col: Column, m: ConnectedMachineWire, now: number): string {
  switch (col.id) {
    case 'name':
      return esc(fit(m.machine_name, col.width));
    case 'id':
      return esc(fit(m.machine_id, col.width));
    case 'actor':
      return esc(fit(m.actor, col.width));
    case 'prefix':
      return esc(fit(m.token_prefix, col.width));
    case 'used':
      return esc(fit(m.last_used_at ? formatAge(m.last_used_at, now) : '-', col.width, 'right'));
    default:
      return '';
  }
}

export function renderConnectedRows(state: State, width: number, height: number, previousOffset: number): ListRender {
  const count = state.connected.length;
  const selected = selectedIndex(state, 'machines');
  const offset = scrollWindow(Math.max(selected, 0), count, height, previousOffset);
  const cols = connectedColumns(width);
  const lines: string[] = [];
  for (let i = offset; i < Math.min(count, offset + height); i++) {
    const text = cols.map((c) => connectedCell(c, state.connected[i], state.now)).join(' ');
    lines.push(i === selected ? inverse(`›${text}`) : ` ${text}`);
  }
  return { lines, offset };
}

export function machinesHeaderLine(width: number, theme: Theme, connected = false): string {
  if (connected) {
    return paint(
      theme,
      ` ${connectedColumns(width)
        .map((c) => esc(fit(c.title, c.width, c.align)))
        .join(' ')}`,
      'gray',
    );
  }
  return paint(
    theme,
    ` ${machineColumns(width)
      .map((c) => esc(fit(c.title, c.width, c.align)))
      .join(' ')}`,
    'gray',
  );
}

function machineCell(col: Column, r: MachineAuthorizationRequest, now: number, theme: Theme): string {
  switch (col.id) {
    case 'name':
      return esc(fit(r.machine_name, col.width));
    case 'id':
      return esc(fit(r.machine_id, col.width));
    case 'address':
      return esc(fit(r.client_address, col.width));
    case 'age':
      return esc(fit(formatAge(r.created_at, now), col.width, 'right'));
    case 'expires': {
      const left = Date.parse(r.expires_at) - now;
      const text = esc(fit(formatCountdown(r.expires_at, now), col.width, 'right'));
      return left < 60_000 ? paint(theme, text, 'red') : paint(theme, text, 'yellow');
    }
    case 'claimed':
      return esc(fit(r.claimed_by_caller ? 'yes' : '', col.width));
    default:
      return '';
  }
}

export function renderMachineRows(
  state: State,
  width: number,
  height: number,
  previousOffset: number,
  theme: Theme,
): ListRender {
  const count = state.machines.length;
  const selected = selectedIndex(state, 'machines');
  const offset = scrollWindow(Math.max(selected, 0), count, height, previousOffset);
  const cols = machineColumns(width);
  const lines: string[] = [];
  for (let i = offset; i < Math.min(count, offset + height); i++) {
    const r = state.machines[i];
    if (i === selected) lines.push(inverse(`›${cols.map((c) => machineCell(c, r, state.now, PLAIN)).join(' ')}`));
    else lines.push(` ${cols.map((c) => machineCell(c, r, state.now, theme)).join(' ')}`);
  }
  return { lines, offset };
}

export function eventSummary(e: EventWire): string {
  const p = e.payload ?? {};
  const str = (v: unknown) =>
    typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
  const obj = (v: unknown) => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {});
  if (e.name === 'ChargeDecisionMade') {
    const d = { ...p, ...obj(p.detail) };
    return [str(d.reason), d.dispatched === true ? 'dispatched' : 'not dispatched', str(d.adapter)]
      .filter(Boolean)
      .join(' · ');
  }
  if (e.name === 'FrontierComputed') {
    const c = obj(p.counts);
    return `runnable ${str(c.runnable)} · blocked ${str(c.blocked)} · frozen ${str(c.frozen)} · WIP ${str(p.wip_active)}/${str(p.wip_cap)}`;
  }
  const keys = Object.keys(p).slice(0, 4);
  return keys.map((k) => `${k}=${typeof p[k] === 'object' ? '…' : str(p[k])}`).join(' ');
}

function eventTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return d.toISOString().slice(11, 19);
}

interface EventColumns {
  who: number;
  via: boolean;
  project: boolean;
  what: number;
}

function eventColumns(width: number): EventColumns {
  const via = width >= 100;
  const project = width >= 120;
  // an agent's who is long (mia #12 claude-code): the column grows with the terminal, enter shows it whole
  const who = width >= 120 ? 24 : width >= 100 ? 18 : 12;
  const fixed = 1 + 9 + 9 + (who + 1) + (via ? 7 : 0) + (project ? 10 : 0);
  return { who, via, project, what: Math.max(8, width - fixed) };
}

export function eventWho(state: State, e: EventRow): string {
  return e.change ? changeWho(e.change) : actorLabel(state, e.actor_id);
}

export function eventWhat(e: EventRow): string {
  if (e.change) return changeWhat(e.change);
  const summary = eventSummary(e);
  return summary ? `${e.name} ${summary}` : e.name;
}

export function eventsHeaderLine(width: number, theme: Theme, unseen = 0): string {
  const c = eventColumns(width);
  const marker = unseen > 0 ? `↑ ${unseen} new · g goes to the top` : '';
  const what = marker ? `change  ${marker}` : 'change';
  const head = ` ${fit('time', 8)} ${fit('item', 8)} ${fit('who', c.who)} ${c.via ? `${fit('via', 6)} ` : ''}${c.project ? `${fit('project', 9)} ` : ''}`;
  if (!marker) return paint(theme, `${head}${fit(what, c.what)}`, 'gray');
  return `${paint(theme, head, 'gray')}${paint(theme, bold(esc(fit(what, c.what))), 'yellow')}`;
}

export function renderEventRows(
  state: State,
  width: number,
  height: number,
  previousOffset: number,
  theme: Theme,
): ListRender {
  const rows = visibleEvents(state);
  const count = rows.length;
  const selected = selectedIndex(state, 'events');
  const offset = scrollWindow(Math.max(selected, 0), count, height, previousOffset);
  const c = eventColumns(width);
  const lines: string[] = [];
  for (let i = offset; i < Math.min(count, offset + height); i++) {
    const e = rows[i];
    const via = c.via ? `${fit(e.change?.path ?? '', 6)} ` : '';
    const project = c.project ? `${fit(e.project ?? '', 9)} ` : '';
    const text = `${fit(eventTime(e.created_at), 8)} ${fit(e.item_id ?? '', 8)} ${fit(eventWho(state, e), c.who)} ${via}${project}${fit(eventWhat(e), c.what)}`;
    if (i === selected) lines.push(inverse(`›${esc(text)}`));
    else lines.push(` ${e.name === 'ChargeDecisionMade' ? paint(theme, esc(text), 'cyan') : esc(text)}`);
  }
  return { lines, offset };
}

export function listHeaderLine(state: State, tab: Tab, width: number, theme: Theme): string {
  if (isFrontierTab(tab))
    return frontierHeaderLine(
      width,
      bucketTotal(state, tab),
      theme,
      refWidthOf(state),
      tab,
      state.sort,
      state.sortDesc,
    );
  return tab === 'machines'
    ? machinesHeaderLine(width, theme, state.machinesView === 'connected')
    : eventsHeaderLine(width, theme, unseenEvents(state));
}

export function frontierColumnAt(state: State, width: number, x: number, theme: Theme): string | null {
  if (!isFrontierTab(state.tab)) return null;
  const cols = frontierColumns(width, bucketTotal(state, state.tab), refWidthOf(state), theme.columns, state.tab);
  let at = 1;
  for (const c of cols) {
    if (x >= at && x < at + c.width) return c.id;
    at += c.width + 1;
  }
  return null;
}
