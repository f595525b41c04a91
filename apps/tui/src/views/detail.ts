import { claimOf, conductEligible, formatAge, selectedItem } from '../state/selectors';
import { State } from '../state/state';
import type { DependencyEdgeWire } from '../wire';
import { bold, esc, paint, Theme, wrap } from './format';
import { claimLabel } from './lists';

function edgeLine(e: DependencyEdgeWire, side: 'in' | 'out'): string {
  const other = side === 'in' ? (e.blocker ?? '(missing)') : e.dependent;
  const state = side === 'in' ? (e.blocker_stage ?? 'unknown') : '';
  const flags = [
    e.blocking_abandoned ? 'abandoned: can never clear' : '',
    e.environment ? `env ${e.environment.name} ${e.environment.delivery_state}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return `[${e.gate_point}] ${other} ${e.satisfaction}${state ? ` · now ${state}` : ''} · unsatisfied${flags ? ` (${flags})` : ''}`;
}

// The detail pane as lines (tags included); the layout scrolls them.
export function detailLines(state: State, width: number, theme: Theme): string[] {
  const item = selectedItem(state);
  const d = state.detail;
  if (!item) return [paint(theme, ' nothing selected', 'gray')];
  const w = Math.max(10, width - 2);
  const out: string[] = [];
  const text = (t: string, indent = 1) =>
    wrap(t, w - indent - 2).forEach((l, i) => out.push(`${' '.repeat(i === 0 ? indent : indent + 2)}${esc(l)}`));
  const heading = (t: string) => out.push(` ${paint(theme, bold(esc(t)), 'cyan')}`);

  out.push(` ${bold(esc(item.item_id))}  ${esc(item.title)}`);
  text(`status ${item.status} · priority ${item.priority} · adapter ${item.adapter}`);
  text(
    `depth ${item.downstream_depth} · unblocks ${item.unblocks_count} · age ${formatAge(item.created_at, state.now)}`,
  );
  const claim = claimOf(state, item.item_id);
  if (conductEligible(state).has(item.item_id))
    out.push(` ${paint(theme, '* conduct-eligible (inside the WIP cap)', 'green')}`);
  out.push(
    claim
      ? ` ${paint(theme, esc(`@ claimed by ${claimLabel(claim)} (${claim.harness}/${claim.model}, lane ${claim.lane}) until ${claim.expires_at.slice(11, 19)}`), 'magenta')}`
      : ' not claimed',
  );

  if (item.blocked_by.length > 0 || item.blocked_reasons.length > 0) {
    heading('Blocked by');
    item.blocked_by.forEach((b) => text(`- ${b}`));
    item.blocked_reasons.forEach((r) => text(`  reason: ${r}`));
  }

  const ex = d?.explain;
  if (ex) {
    heading('Why');
    // the summary's own critical-path sentence is replaced by the structured lines below
    const summary = ex.summary.filter((line) => !line.startsWith('critical path'));
    summary.forEach((line) => text(line));
    if (ex.operator_block) text(`operator block: ${ex.operator_block}`);
    if (ex.critical_path.length > 1) text(`critical path: ${ex.critical_path.join(' → ')}`);
    if (ex.unblock_roots.length > 0) text(`start first: ${ex.unblock_roots.join(', ')}`);
    if (ex.stuck.length > 0) text(`needs a person (not runnable, waits on nothing): ${ex.stuck.join(', ')}`);
    for (const u of ex.unsatisfied) {
      const reason = summary.includes(u.reason) ? '' : `: ${u.reason}`;
      text(`- ${u.blocker ?? '(missing)'} ${u.satisfaction}${reason}${u.need ? ` — need ${u.need}` : ''}`);
    }
  } else if (d && !d.errors.length) {
    out.push(paint(theme, ' loading explain…', 'gray'));
  }

  if (d?.edgesIn || d?.edgesOut) {
    heading('Waits on (unsatisfied edges in)');
    if (!d.edgesIn?.length) text('none');
    d.edgesIn?.forEach((e) => text(edgeLine(e, 'in')));
    heading('Holds back (unsatisfied edges out)');
    if (!d.edgesOut?.length) text('none');
    d.edgesOut?.forEach((e) => text(edgeLine(e, 'out')));
  }

  if (d?.dbClaim !== undefined && d?.dbClaim !== null) {
    heading('DB claim');
    const c = d.dbClaim;
    text(`${c.reviewed ? 'reviewed' : 'not reviewed'} (${c.reviewed_reason})${c.malformed ? ' · malformed' : ''}`);
    if (c.db_mutation_profile) text(`mutation profile: ${c.db_mutation_profile}`);
  }

  if (d?.epicTasks && d.epicTasks.length > 0) {
    heading(`Epic tasks (${d.epicTasks.length})`);
    d.epicTasks.forEach((t) => text(`${t.task_num}. [${t.status}] ${t.title ?? ''}`));
  }

  if (d?.item?.body) {
    heading('Body');
    text(d.item.body.slice(0, 20_000));
  }
  for (const e of d?.errors ?? []) out.push(` ${paint(theme, esc(`could not load: ${e}`), 'red')}`);
  return out;
}
