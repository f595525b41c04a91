import { sortHelp, SORT_KEYS, sortKeyOf } from '@app/contracts';
import type { PickerOption, State } from '../state';
import { applyView, userCommand } from '../user-views';
import { BUCKETS, status, triage, TriageHelpers } from './common';
import { jumpTo, sortBy } from './navigation';

const PALETTE_VERBS = ['item', 'project', 'sort', 'filter', 'view', 'run'];
const PALETTE_HELP: Record<string, string> = {
  item: 'jump to an item',
  project: 'switch project',
  sort: '<column> [asc|desc]',
  filter: 'pri:high status:planned @me words',
  view: "<name>: one of tui.json's views",
  run: "<name>: one of tui.json's commands, on the selected item",
};

export function paletteOptions(state: State, text: string): PickerOption[] {
  const t = text.trim();
  const [verb, ...rest] = t.split(/\s+/);
  const arg = rest.join(' ');
  if (verb === 'project' || (rest.length === 0 && 'project'.startsWith(verb) && verb.length > 1 && !/\d/.test(verb))) {
    const projects = (state.projects ?? []).map((p) => ({
      value: `project ${p.id}`,
      label: `project ${p.id}`,
      note: p.name,
    }));
    return verb === 'project' ? projects.filter((o) => o.value.includes(arg)) : projects;
  }
  if (verb === 'sort') {
    const [word = '', dir = ''] = arg.toLowerCase().split(/\s+/);
    const suffix = dir && 'desc'.startsWith(dir) ? ' desc' : dir && 'asc'.startsWith(dir) ? ' asc' : '';
    return SORT_KEYS.filter((k) => k.startsWith(word)).map((k) => ({
      value: `sort ${k}${suffix}`,
      label: `sort ${k}${suffix}`,
      note: `${sortHelp(k)}${(state.sort ?? 'rank') === k ? ' · current' : ''}`,
    }));
  }
  if (verb === 'view') {
    return state.views
      .filter((v) => v.name.startsWith(arg))
      .map((v, i) => ({
        value: `view ${v.name}`,
        label: `view ${v.name}`,
        note: [v.tab, v.filter && `/${v.filter}`, v.sort && `sort ${v.sort}${v.desc ? ' desc' : ''}`, `M-${i + 1}`]
          .filter(Boolean)
          .join(' · '),
      }));
  }
  if (verb === 'run') {
    return state.userCommands
      .filter((c) => c.name.startsWith(arg))
      .map((c) => ({
        value: `run ${c.name}`,
        label: `run ${c.name}`,
        note: c.help ?? (c.run ? `$ ${c.run}` : `open ${c.open ?? ''}`),
      }));
  }
  if (verb === 'filter') {
    return [
      { value: `filter ${arg}`.trimEnd(), label: `filter ${arg}`.trimEnd(), note: 'pri:high status:planned @me words' },
    ];
  }
  const needle = (verb === 'item' ? arg : t).toLowerCase();
  const items: PickerOption[] = [];
  for (const tab of BUCKETS) {
    for (const r of state.frontier?.[tab] ?? []) {
      if (needle && !`${r.item_id} ${r.title}`.toLowerCase().includes(needle)) continue;
      items.push({ value: r.item_id, label: `${r.item_id} ${r.title}`, note: tab });
    }
  }
  const exact = items.filter((o) => o.value.toLowerCase() === needle);
  const history = state.triage.history
    .slice()
    .reverse()
    .filter((h) => !t || h.startsWith(t))
    .map((h) => ({ value: h, label: h, note: 'history' }));
  // commands first when the text is the start of one (`:so` → sort, before an item titled "SSO…")
  const verbs = PALETTE_VERBS.filter((v) => v.startsWith(t.toLowerCase())).map((v) => ({
    value: `${v} `,
    label: `${v} …`,
    note: `command: ${PALETTE_HELP[v]}`,
  }));
  const others = items.filter((o) => !exact.includes(o));
  if (!t) return [...history, ...verbs, ...others].slice(0, 200);
  return [...exact, ...verbs, ...history, ...others].slice(0, 200);
}

export function runPalette(state: State, typed: string, top: PickerOption | undefined, helpers: TriageHelpers): State {
  const text = typed.trim();
  const history = text ? [...state.triage.history.filter((h) => h !== text), text].slice(-50) : state.triage.history;
  const closed = triage({ ...state, dialog: null }, { history });
  const whole = /^(item|project|filter|sort|view|run)\s+\S/.test(text) || /^[A-Za-z][A-Za-z0-9]*-\d+$/.test(text);
  const line = whole ? text : (top?.value ?? text);
  const [verb, ...rest] = line.trim().split(/\s+/);
  if (verb === 'sort') {
    const key = sortKeyOf(rest[0] ?? '');
    const dir = (rest[1] ?? 'asc').toLowerCase();
    if (!key || !['asc', 'desc'].includes(dir) || rest.length > 2)
      return status(closed, `sort by one of: ${SORT_KEYS.join(', ')} [asc|desc]`, 'warn');
    return sortBy(closed, key, dir === 'desc', helpers);
  }
  if (verb === 'filter') {
    const filter = rest.join(' ');
    const filtered = helpers.settle({ ...closed, filter, filtering: false });
    return status(filtered, filter ? `filter: ${filter} · esc clears it` : 'filter cleared', 'info');
  }
  if (verb === 'view') return applyView(closed, { type: 'view_apply', name: rest[0] ?? '' }, helpers);
  if (verb === 'run') return userCommand(closed, rest[0] ?? '');
  if (verb === 'project') {
    const id = rest[0] ?? '';
    if (!state.projects?.some((p) => p.id === id)) return status(closed, `no project "${id}"`, 'warn');
    if (id === state.project) return closed;
    return helpers.selectProject(closed, id);
  }
  const ref = (verb === 'item' ? rest[0] : verb) ?? '';
  if (!ref) return closed;
  const jumped = jumpTo(closed, ref.toUpperCase(), helpers) ?? jumpTo(closed, ref, helpers);
  if (!jumped) return status(closed, `${ref}: not in this project's frontier (runnable, blocked or frozen)`, 'warn');
  return status(jumped, `${ref.toUpperCase()} is in ${jumped.tab} · backspace goes back`, 'info');
}
