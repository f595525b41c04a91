import { selectedEdge } from '../state/edge-select';
import { claimOf, conductEligible, formatAge, formatWhen, selectedItem } from '../state/selectors';
import { State } from '../state/state';
import type { DetailEdge } from '../state/edges';
import type { Pipeline } from '../state/pipeline';
import { bold, clean, esc, inverse, paint, Theme, wrap } from './format';
import { commentPaneLines } from './comments';
import { historyPaneLines } from './history';
import { claimLabel } from './lists';

// Satisfaction is marked with a glyph and a word, so it reads without colour.
function edgeLine(e: DetailEdge): { head: string; mark: string; color: string; extra: string } {
  const state = e.state ? ` (${e.state})` : '';
  const head = `[${e.gate_point}] ${e.other ?? '(missing item)'}${state} ${e.satisfaction}`;
  const extra = [
    e.satisfied ? '' : e.need ? `need ${e.need}` : e.reason,
    e.abandoned ? 'abandoned: can never clear' : '',
    e.environment ? `env ${e.environment}` : '',
  ]
    .filter(Boolean)
    .join('; ');
  return e.satisfied
    ? { head, mark: '✓ satisfied', color: 'green', extra }
    : { head, mark: '✗ unsatisfied', color: 'red', extra };
}

// A DB mutation profile is stored as JSON text: shown as its fields ("state none"), the text itself otherwise.
function profileText(profile: string): string {
  try {
    const parsed: unknown = JSON.parse(profile);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      return Object.entries(parsed)
        .map(([k, v]) => `${k} ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
        .join(' · ');
    }
  } catch {
    // not JSON: the text as it is
  }
  return profile;
}

function pipelineLines(p: Pipeline, now: number): { text: string; halt?: boolean }[] {
  const out: { text: string; halt?: boolean }[] = [];
  const current = p.halt?.stage ?? p.current_stage;
  const index = p.stage_index !== null && p.stage_index > 0 ? p.stage_index - 1 : -1;
  if (p.stages.length > 0) {
    const stages = p.stages.map((s, i) => {
      const gate = `${s.approval ? ' (approval)' : ''}${s.capabilities.length ? ` (needs ${s.capabilities.join(', ')})` : ''}`;
      const name = `${s.name}${gate}`;
      if (index >= 0 ? i === index : s.name === current) return `▶ ${name}`;
      if (index >= 0 && i < index) return `✓ ${name}`;
      return `· ${name}`;
    });
    out.push({ text: `stages: ${stages.join(' › ')}` });
  }
  const position = p.stage_index !== null && p.stage_count !== null ? ` · stage ${p.stage_index}/${p.stage_count}` : '';
  out.push({
    text: p.run_id
      ? `run ${p.run_id}${p.environment ? ` to ${p.environment}` : ''}${position}${p.current_stage ? ` · at ${p.current_stage}` : ''}`
      : 'no run carries it yet',
  });
  out.push({ text: `deploy_stage: ${p.deploy_stage ?? '(not set)'}` });
  const h = p.halt;
  if (h) {
    const since = formatAge(h.since, now);
    out.push({
      halt: true,
      text:
        h.kind === 'awaiting-approval'
          ? `⏸ HALTED: awaiting approval for ${h.stage} since ${since}`
          : `⏸ HALTED: needs capability ${h.missing.join(', ')} for ${h.stage} since ${since}`,
    });
    out.push({
      text:
        h.kind === 'awaiting-approval'
          ? 'A approves it here (asks first), as `svc approve <ref>` does; then re-run the usher step'
          : 'fix the capability, then re-run the usher step',
    });
  }
  return out;
}

export function detailLines(state: State, width: number, theme: Theme): string[] {
  return detailPane(state, width, theme).lines;
}

export function detailPane(state: State, width: number, theme: Theme): { lines: string[]; selected: number | null } {
  let selected: number | null = null;
  const item = selectedItem(state);
  const d = state.detail;
  if (!item) return { lines: [paint(theme, ' nothing selected', 'gray')], selected: null };
  const w = Math.max(10, width - 2);
  const out: string[] = [];
  const text = (t: string, indent = 1) =>
    wrap(t, w - indent - 2).forEach((l, i) => out.push(`${' '.repeat(i === 0 ? indent : indent + 2)}${esc(l)}`));
  const heading = (t: string) => out.push(` ${paint(theme, bold(esc(t)), 'cyan')}`);

  // the title is other people's text: cleaned and wrapped by display width like every line of the pane
  const id = clean(item.item_id);
  wrap(`${id}  ${item.title}`, w - 3).forEach((l, i) =>
    out.push(i === 0 && l.startsWith(id) ? ` ${bold(esc(id))}${esc(l.slice(id.length))}` : `   ${esc(l)}`),
  );
  text(`status ${item.status} · priority ${item.priority} · adapter ${item.adapter}`);
  text(
    `depth ${item.downstream_depth} · unblocks ${item.unblocks_count} · age ${formatAge(item.created_at, state.now)}`,
  );
  const claim = claimOf(state, item.item_id);
  if (conductEligible(state).has(item.item_id))
    out.push(` ${paint(theme, '* conduct-eligible (inside the WIP cap)', 'green')}`);
  if (claim) {
    // the holder by name and session, when it lapses (a claim of this TUI's session is renewed while it is open)
    const since = formatAge(claim.claimed_at, state.now);
    const mine = state.session !== null && claim.session_id === state.session;
    const lapse = `lapses ${formatWhen(claim.expires_at, state.now)}${mine ? ' unless renewed (this TUI renews it while open)' : ''}`;
    const line = `@ claimed by ${claimLabel(claim)} (${claim.harness}, ${claim.model}, lane ${claim.lane})${since ? ` ${since} ago` : ''}, ${lapse}`;
    wrap(line, w - 3).forEach((l, i) => out.push(`${i === 0 ? ' ' : '   '}${paint(theme, esc(l), 'magenta')}`));
  } else {
    out.push(' not claimed');
  }

  const comments = d?.item?.comments ?? [];
  const commentCount = d?.item?.comment_count ?? comments.length;
  if (d?.item && commentCount > 0) {
    heading(`Comments (${commentCount}, newest first · m: add)`);
    out.push(...commentPaneLines(comments, commentCount, state.now, w, theme));
  }

  // who changed it last, and what: near the top, so the newest change shows in a small pane; h lists all
  if (d?.history && d.history.length > 0) {
    heading('History (h: all)');
    out.push(...historyPaneLines(d.history, state.now, w));
  } else if (d?.history) {
    heading('History');
    text('no change recorded yet');
  }

  if (item.blocked_by.length > 0 || item.blocked_reasons.length > 0) {
    heading('Blocked by');
    item.blocked_by.forEach((b) => text(`- ${b}`));
    item.blocked_reasons.forEach((r) => text(`  reason: ${r}`));
  }

  // every sentence once in the pane: the Why section skips what Blocked by already said, and the explain
  // summary's own critical-path sentence gives way to the structured lines
  const said = new Set<string>([...item.blocked_reasons]);
  const once = (t: string) => {
    if (said.has(t)) return;
    said.add(t);
    text(t);
  };
  const ex = d?.explain;
  if (ex) {
    heading('Why');
    // the explain summary as `svc frontier explain` prints it: the critical path points from the item to what it
    // waits on (A ← B ← C; start with C)
    ex.summary.forEach(once);
    if (ex.critical_path.length > 1 && !ex.summary.some((l) => l.startsWith('critical path'))) {
      once(`critical path: ${ex.critical_path.join(' ← ')}`);
    }
    if (ex.operator_block) once(`operator block: ${ex.operator_block}`);
    if (ex.unblock_roots.length > 0) once(`start first: ${ex.unblock_roots.join(', ')}`);
    if (ex.stuck.length > 0) once(`needs a person (not runnable, waits on nothing): ${ex.stuck.join(', ')}`);
    for (const u of ex.unsatisfied) {
      once(said.has(u.reason) ? `- ${u.blocker ?? '(missing)'}: need ${u.need}` : `- ${u.reason} — need ${u.need}`);
    }
  } else if (d && !d.errors.length) {
    out.push(paint(theme, ' loading explain…', 'gray'));
  }

  if (d?.pipeline) {
    heading(`Deployment pipeline (flow ${d.pipeline.flow})`);
    for (const l of pipelineLines(d.pipeline, state.now)) {
      if (l.halt) wrap(l.text, w - 3).forEach((t) => out.push(` ${paint(theme, esc(t), 'yellow')}`));
      else text(l.text);
    }
  }

  const chosen = selectedEdge(state);
  const edge = ({ head, mark, color, extra }: ReturnType<typeof edgeLine>, e?: DetailEdge) => {
    const lines = wrap(`${head} · ${mark}`, w - 3);
    if (e && e === chosen) {
      selected = out.length;
      lines.forEach((l, i) => out.push(inverse(`${i === 0 ? '›' : '  '}${esc(l)}`)));
      if (extra) text(extra, 3);
      return;
    }
    lines.forEach((l, i) => {
      const indent = i === 0 ? ' ' : '   ';
      const last = i === lines.length - 1 && l.endsWith(mark);
      out.push(indent + (last ? `${esc(l.slice(0, -mark.length))}${paint(theme, mark, color)}` : esc(l)));
    });
    if (extra) text(extra, 3);
  };
  if (d?.edges) {
    const into = d.edges.filter((e) => e.side === 'in');
    const from = d.edges.filter((e) => e.side === 'out');
    heading(`Depends on (edges in: ${into.length})`);
    if (into.length === 0) text('none');
    into.forEach((e) => edge(edgeLine(e), e));
    heading(`Blocks (edges out: ${from.length})`);
    if (from.length === 0) text('none');
    from.forEach((e) => edge(edgeLine(e), e));
  }

  if (d?.dbClaim !== undefined && d?.dbClaim !== null) {
    heading('DB claim');
    const c = d.dbClaim;
    text(`${c.reviewed ? 'reviewed' : 'not reviewed'} (${c.reviewed_reason})${c.malformed ? ' · malformed' : ''}`);
    if (c.db_mutation_profile) text(`mutation profile: ${profileText(c.db_mutation_profile)}`);
  }

  if (d?.epicTasks && d.epicTasks.length > 0) {
    heading(`Epic tasks (${d.epicTasks.length}; t lists them, enter opens one)`);
    d.epicTasks.forEach((t) => text(`${t.task_num}. [${t.status}] ${t.title ?? ''}`));
  }

  if (d?.item?.body) {
    heading('Body');
    text(d.item.body.slice(0, 20_000));
  }
  for (const e of d?.errors ?? []) out.push(` ${paint(theme, esc(`could not load: ${e}`), 'red')}`);
  return { lines: out, selected };
}
