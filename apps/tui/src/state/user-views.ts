import type { HelpRow } from '../keys/help';
import type { Action } from './actions';
import { selectedItem } from './selectors';
import type { State, StatusTone } from './state';

export interface ViewHelpers {
  settle(state: State): State;
}

function status(state: State, text: string, tone: StatusTone): State {
  return { ...state, status: { text, tone, at: state.now } };
}

export function applyView(state: State, action: Action & { type: 'view_apply' }, helpers: ViewHelpers): State {
  const views = state.views;
  const named = (name: string) => {
    const starts = views.filter((v) => v.name.startsWith(name));
    return views.find((v) => v.name === name) ?? (name && starts.length === 1 ? starts[0] : undefined);
  };
  const view = action.name !== undefined ? named(action.name) : views[action.index ?? Number.NaN];
  if (!view) {
    const known = views.length ? `views: ${views.map((v, i) => `${v.name} (M-${i + 1})`).join(', ')}` : 'none set';
    const which = action.name !== undefined ? `"${action.name}"` : `M-${(action.index ?? 0) + 1}`;
    return status(state, `no view ${which} in tui.json (${known})`, 'warn');
  }
  const next = helpers.settle({
    ...state,
    dialog: null,
    tab: view.tab ?? state.tab,
    filter: view.filter ?? '',
    filtering: false,
    sort: view.sort ?? 'rank',
    sortDesc: view.desc ?? false,
  });
  return status(next, `view ${view.name}`, 'info');
}

let requests = 0;

function external(state: State, command: string | null): State {
  const item = selectedItem(state);
  if (!item) return status(state, 'no item selected', 'warn');
  requests += 1;
  const what = command === null ? `opening the link of ${item.item_id}…` : `${command} ${item.item_id}…`;
  return status({ ...state, dialog: null, external: { id: requests, ref: item.item_id, command } }, what, 'info');
}

export function openLink(state: State): State {
  return external(state, null);
}

export function userCommand(state: State, typed: string): State {
  const starts = state.userCommands.filter((c) => c.name.startsWith(typed));
  const name =
    state.userCommands.some((c) => c.name === typed) || starts.length !== 1 || !typed ? typed : starts[0].name;
  if (!state.userCommands.some((c) => c.name === name)) {
    const known = state.userCommands.map((c) => c.name).join(', ') || 'none set';
    return status({ ...state, dialog: null }, `no command "${name}" in tui.json (commands: ${known})`, 'warn');
  }
  return external(state, name);
}

export function userHelp(state: State): { title: string; rows: HelpRow[] }[] {
  const out: { title: string; rows: HelpRow[] }[] = [];
  if (state.views.length) {
    out.push({
      title: 'Your views (tui.json)',
      rows: state.views.map((v, i) => ({
        keys: i < 9 ? `M-${i + 1}` : `:view ${v.name}`,
        help: `view ${v.name}: ${[v.tab, v.filter && `/${v.filter}`, v.sort && `sort ${v.sort}${v.desc ? ' desc' : ''}`].filter(Boolean).join(' · ') || 'no filter, rank order'}`,
        scope: 'list',
        dangerous: false,
      })),
    });
  }
  if (state.userCommands.length) {
    out.push({
      title: 'Your commands (tui.json, on the selected item)',
      rows: state.userCommands.map((c) => ({
        keys: c.key ?? `:run ${c.name}`,
        help: `${c.name}: ${c.help ?? (c.run ? `runs ${c.run}` : `opens ${c.open ?? ''}`)}`,
        scope: 'frontier',
        dangerous: false,
      })),
    });
  }
  return out;
}
