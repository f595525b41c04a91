import { userHelp } from '../state/user-views';
import { helpSections, keyLabel } from '../keys/help';
import { activeScope, formatAge, pickerProjects } from '../state/selectors';
import { Dialog, State } from '../state/state';
import { promptCursor } from '../state/prompt';
import { bold, displayWidth, esc, fit, inverse, paint, promptText, Theme, truncate, wrap } from './format';
import { commentDialog } from './comments';
import { historyDialog } from './history';
import type { OverlayContent } from './overlay-content';
import { inputDialog, pickerDialog, refusalDialog, triageConfirmDialog } from './triage-overlays';

export type { OverlayContent } from './overlay-content';

function buttonSpans(row: number, focus: 'no' | 'yes', yesLabel: string): NonNullable<OverlayContent['buttons']> {
  const yes = displayWidth(`[ ${yesLabel} ]`);
  return focus === 'no' ? { row, no: [3, 11], yes: [14, 14 + yes] } : { row, no: [4, 10], yes: [13, 15 + yes] };
}

function buttons(focus: 'no' | 'yes', yesLabel: string): string {
  const no = '[ No ]';
  const yes = `[ ${yesLabel} ]`;
  // the focused button is inverted and marked with > <, so focus shows without colour
  return focus === 'no' ? `   ${inverse(`>${no}<`)}   ${yes} ` : `    ${no}   ${inverse(`>${esc(yes)}<`)}`;
}

export function chargeDialog(d: Dialog & { kind: 'charge' }, width: number, theme: Theme): OverlayContent {
  const w = Math.min(76, width - 4);
  const lines: string[] = [];
  if (d.phase === 'loading' || !d.step) {
    lines.push(` ${esc(d.ref ? `looking up ${d.ref} in the schedule…` : 'looking up the top runnable item…')}`);
    lines.push('');
    const answer =
      d.queued === 'yes'
        ? 'y received: it dispatches as soon as the item is known (n or esc still cancels).'
        : 'y dispatches it as soon as it is known; n or esc cancels now.';
    wrap(answer, w - 4).forEach((l) => lines.push(` ${paint(theme, esc(l), d.queued ? 'yellow' : 'white')}`));
  } else {
    const s = d.step;
    const body = (t: string) => wrap(t, w - 4).forEach((l) => lines.push(` ${esc(l)}`));
    body(`Dispatch ${s.item_id} "${s.title}"?`);
    lines.push('');
    lines.push(
      ` ${fit('item', 11)}${esc(truncate(`${s.item_id} (${s.project}, ${s.priority}, ${s.status})`, w - 16))}`,
    );
    lines.push(` ${fit('adapter', 11)}${esc(s.adapter)}`);
    lines.push(` ${fit('entrypoint', 11)}${esc(truncate(s.entrypoint ?? '(none)', w - 16))}`);
    lines.push('');
    body(
      'y claims the item for this session and runs the dispatch (same as `svc charge --yes`); n or esc cancels and records operator_cancelled.',
    );
    lines.push('');
    lines.push(
      d.phase === 'running' ? ` ${paint(theme, 'dispatching…', 'yellow')}` : buttons(d.focus, 'Yes, dispatch'),
    );
    if (d.phase === 'confirm')
      return { title: ' Charge ', lines, width: w, buttons: buttonSpans(lines.length - 1, d.focus, 'Yes, dispatch') };
  }
  return { title: ' Charge ', lines, width: w };
}

export function codeDialog(
  d: Dialog & { kind: 'code' },
  width: number,
  theme: Theme,
  cursor: number | null = null,
): OverlayContent {
  const w = Math.min(70, width - 4);
  const lines: string[] = [];
  const verb = d.action === 'approve' ? 'Approve' : 'Deny';
  wrap(`${verb} the request of "${d.machineName}": type the code the machine shows.`, w - 4).forEach((l) =>
    lines.push(` ${esc(l)}`),
  );
  if (d.machineId) wrap(`machine id: ${d.machineId}`, w - 4).forEach((l) => lines.push(` ${esc(l)}`));
  lines.push('');
  lines.push(` code: ${d.busy ? bold(esc(d.input)) : promptText(d.input, cursor, w - 12)}`);
  lines.push('');
  if (d.warning) wrap(`! ${d.warning}`, w - 4).forEach((l) => lines.push(` ${paint(theme, esc(l), 'red')}`));
  else if (d.busy) lines.push(` ${paint(theme, 'sending…', 'yellow')}`);
  else
    lines.push(
      paint(
        theme,
        ` enter ${d.action === 'deny' ? 'continues (deny asks to confirm)' : 'approves'} · esc cancels`,
        'gray',
      ),
    );
  return { title: ` ${verb} machine `, lines, width: w };
}

export function confirmDenyDialog(d: Dialog & { kind: 'confirm-deny' }, width: number, theme: Theme): OverlayContent {
  const w = Math.min(64, width - 4);
  const lines: string[] = [];
  const code = d.code ? ` (code ${d.code})` : '';
  wrap(`Deny "${d.machineName}"${code}? The machine will not be connected.`, w - 4).forEach((l) =>
    lines.push(` ${esc(l)}`),
  );
  if (d.machineId) wrap(`machine id: ${d.machineId}`, w - 4).forEach((l) => lines.push(` ${esc(l)}`));
  lines.push('');
  lines.push(d.busy ? ` ${paint(theme, 'sending…', 'yellow')}` : buttons(d.focus, 'Yes, deny'));
  const spans = d.busy ? undefined : buttonSpans(lines.length - 1, d.focus, 'Yes, deny');
  return { title: ' Deny machine ', lines, width: w, buttons: spans };
}

export function confirmRevokeDialog(
  d: Dialog & { kind: 'confirm-revoke' },
  width: number,
  theme: Theme,
): OverlayContent {
  const w = Math.min(64, width - 4);
  const lines: string[] = [];
  wrap(
    `Revoke the credential of "${d.machineName}"? Its next request is refused (401) on every replica; it connects again only through svc connect and an approval.`,
    w - 4,
  ).forEach((l) => lines.push(` ${esc(l)}`));
  wrap(`machine id: ${d.machineId}`, w - 4).forEach((l) => lines.push(` ${esc(l)}`));
  lines.push('');
  lines.push(d.busy ? ` ${paint(theme, 'sending…', 'yellow')}` : buttons(d.focus, 'Yes, revoke'));
  return { title: ' Revoke machine ', lines, width: w };
}

export function viewDialog(d: Dialog & { kind: 'view' }, width: number, height: number, theme: Theme): OverlayContent {
  const w = Math.min(96, width - 2);
  const all: string[] = [];
  for (const line of d.lines) {
    const indent = /^\s*/.exec(line)?.[0] ?? '';
    wrap(line, w - 4 - indent.length).forEach((l, i) => all.push(i === 0 ? l : indent + l));
  }
  const room = Math.max(1, height - 5);
  const scroll = Math.min(d.scroll, Math.max(0, all.length - room));
  const shown = all.slice(scroll, scroll + room).map((l) => ` ${esc(l)}`);
  const more = all.length > room ? ` ${scroll + 1}-${scroll + shown.length}/${all.length} j/k ·` : '';
  shown.push(paint(theme, `${more} esc closes`, 'gray'));
  return { title: ` ${truncate(d.title, w - 4)} `, lines: shown, width: w };
}

export function confirmApproveDialog(
  d: Dialog & { kind: 'confirm-approve' },
  state: State,
  width: number,
  theme: Theme,
): OverlayContent {
  const w = Math.min(64, width - 4);
  const lines: string[] = [];
  const where = d.environment && d.environment !== d.stage ? ` (environment ${d.environment})` : '';
  wrap(
    `Approve the ${d.stage} stage${where} for ${d.ref}? It has awaited approval for ${formatAge(d.since, state.now) || 'a moment'}. The approval is recorded under your name, once; re-run the usher step to continue the run.`,
    w - 4,
  ).forEach((l) => lines.push(` ${esc(l)}`));
  lines.push('');
  lines.push(d.busy ? ` ${paint(theme, 'sending…', 'yellow')}` : buttons(d.focus, 'Yes, approve'));
  const spans = d.busy ? undefined : buttonSpans(lines.length - 1, d.focus, 'Yes, approve');
  return { title: ' Approve deployment stage ', lines, width: w, buttons: spans };
}

export function helpOverlay(
  state: State,
  d: Dialog & { kind: 'help' },
  width: number,
  height: number,
  theme: Theme,
): OverlayContent {
  const w = Math.min(90, width - 2);
  const scope = activeScopeBelowHelp(state);
  const sections = helpSections(scope, d.filter, theme.keymap, userHelp(state));
  const keyWidth = 18;
  const body: string[] = [];
  for (const section of sections) {
    if (body.length > 0) body.push('');
    body.push(` ${paint(theme, bold(esc(section.title)), 'cyan')}`);
    for (const r of section.rows) {
      const danger = r.dangerous ? ' (asks first)' : '';
      // a long help wraps under itself, never cut ("a termin…" in a 90-wide box)
      const parts = wrap(r.help, w - keyWidth - 5 - danger.length);
      parts.forEach((part, i) => {
        const keys = i === 0 ? paint(theme, esc(fit(r.keys, keyWidth)), 'cyan') : ' '.repeat(keyWidth);
        const tail = i === parts.length - 1 && danger ? paint(theme, danger, 'yellow') : '';
        body.push(` ${keys} ${esc(part)}${tail}`);
      });
    }
  }
  if (sections.length === 0) body.push(' no key matches');
  // at most the screen less a line above and below; two lines are the search line and a gap
  const visible = Math.max(1, height - 2 - 2 - 2);
  const scrollMax = Math.max(0, body.length - visible);
  const scroll = Math.min(d.scroll ?? 0, scrollMax);
  const shown = body.slice(scroll, scroll + visible);
  while (shown.length < visible) shown.push('');
  const more = scrollMax > 0 ? ` ${scroll + 1}-${scroll + shown.length}/${body.length} (↓/↑ PgDn/PgUp)` : '';
  const lines = [
    ` search: ${bold(esc(truncate(d.filter, w - 40)))}▏  ${paint(theme, '(type to filter, esc closes)', 'gray')}`,
    '',
    ...shown,
  ];
  return { title: ` Keys${more} `, lines, width: w, scrollMax };
}

function activeScopeBelowHelp(state: State) {
  return activeScope({ ...state, dialog: null });
}

export function projectsDialog(
  state: State,
  d: Dialog & { kind: 'projects' },
  width: number,
  height: number,
): OverlayContent {
  const w = Math.min(70, width - 4);
  const rows = pickerProjects(state, d);
  const room = Math.max(1, height - 6);
  const offset = Math.max(0, Math.min(d.index - room + 1, rows.length - room));
  const lines = rows.slice(Math.max(0, offset), Math.max(0, offset) + room).map((p, k) => {
    const i = k + Math.max(0, offset);
    const text = `${fit(p.id, 16)} ${truncate(p.name, w - 24)}${p.id === state.project ? ' (open)' : ''}`;
    return i === d.index ? inverse(`›${esc(text)}`) : ` ${esc(text)}`;
  });
  if (rows.length === 0) lines.push(` no project matches "${esc(d.filter ?? '')}"`);
  if (d.filtering || d.filter) {
    lines.push(
      d.filtering
        ? ` /${promptText(d.filter ?? '', promptCursor(state), 40)} (enter keeps, esc clears)`
        : ` /${esc(d.filter ?? '')}`,
    );
  }
  return { title: ` Projects (${rows.length}/${(state.projects ?? []).length}) `, lines, width: w };
}

export function overlayFor(state: State, width: number, height: number, theme: Theme): OverlayContent | null {
  const d = state.dialog;
  if (!d) return null;
  switch (d.kind) {
    case 'charge':
      return chargeDialog(d, width, theme);
    case 'code':
      return codeDialog(d, width, theme, promptCursor(state));
    case 'confirm-deny':
      return confirmDenyDialog(d, width, theme);
    case 'confirm-approve':
      return confirmApproveDialog(d, state, width, theme);
    case 'help':
      return helpOverlay(state, d, width, height, theme);
    case 'picker':
      return pickerDialog(d, width, height, theme, promptCursor(state));
    case 'input':
      return d.purpose === 'comment'
        ? commentDialog(d, width, height, theme, promptCursor(state))
        : inputDialog(d, width, theme, promptCursor(state));
    case 'triage-confirm':
      return triageConfirmDialog(d, width, height);
    case 'refusal':
      return refusalDialog(d, width, height, theme);
    case 'projects':
      return projectsDialog(state, d, width, height);
    case 'confirm-revoke':
      return confirmRevokeDialog(d, width, theme);
    case 'view':
      return viewDialog(d, width, height, theme);
    case 'history':
      return historyDialog(d, state, width, height, theme);
  }
}

export function failureLines(state: State, width: number, theme: Theme): string[] {
  const f = state.failure;
  if (!f) return [];
  const out = ['', ` ${paint(theme, bold(esc(f.title)), 'red')}`, ''];
  for (const line of f.lines) wrap(line, width - 4).forEach((l) => out.push(` ${esc(l)}`));
  out.push('');
  out.push(paint(theme, ` ${keyLabel('r')} retry now · q quit · retrying every few seconds`, 'gray'));
  return out;
}

export function emptyLines(state: State, width: number, theme: Theme): string[] {
  const out = ['', ` ${bold('No project on this daemon yet.')}`, ''];
  const text = state.readOnly
    ? 'Import a backlog with `svc import <file>` (read-only mode: the TUI does not import).'
    : 'Press i to import the bundled demo backlog (examples/demo-backlog.json: 40 items in project "atlas", epics, every gate point), or import your own with `svc import <file>`.';
  wrap(text, width - 4).forEach((l) => out.push(` ${esc(l)}`));
  if (state.importing) out.push('', ` ${paint(theme, 'importing…', 'yellow')}`);
  return out;
}
