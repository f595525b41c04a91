import type {
  DispatchResponse,
  ExplainResponse,
  FrontierItemWire,
  GateBlockerWire,
  ItemResponse,
  ScheduleResponse,
  ScheduleStep,
  SessionNoticeWire,
} from '@app/contracts';

import { parseEntrypoint } from '../entrypoints';

// Stored text is shown as one line, control characters removed: a title cannot forge a line of its own.

// Every text block carries the complete result, compact: empty values (null, false, 0, "", [], {}) and a nested key
// repeating its parent's value are left out. structuredContent keeps every key; arrays keep their elements.
export function compactJson(value: unknown): string {
  return JSON.stringify(compact(value, null) ?? null);
}

type Plain = Record<string, unknown>;
const isPlain = (v: unknown): v is Plain => typeof v === 'object' && v !== null && !Array.isArray(v);

function compact(value: unknown, parent: Plain | null): unknown {
  if (Array.isArray(value)) return value.map((v) => compact(v, parent) ?? null);
  if (value === null || value === false || value === 0 || value === '' || value === '{}') return undefined;
  if (!isPlain(value)) return value;
  const out: Plain = {};
  for (const [key, v] of Object.entries(value)) {
    if (parent && key in parent && !isPlain(v) && !Array.isArray(v) && parent[key] === v) continue;
    const kept = compact(v, value);
    if (kept === undefined) continue;
    if (Array.isArray(kept) && kept.length === 0) continue;
    if (isPlain(kept) && Object.keys(kept).length === 0) continue;
    out[key] = kept;
  }
  return out;
}

export function oneLine(value: string, max = 120): string {
  // eslint-disable-next-line no-control-regex
  const flat = value.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function whyRanked(step: ScheduleStep): string {
  const parts = [`priority ${step.priority}`];
  parts.push(`heads a chain ${step.downstream_depth} deep`);
  parts.push(`unblocks ${step.unblocks_count} item${step.unblocks_count === 1 ? '' : 's'} directly`);
  parts.push(`stage ${step.status}`);
  let why = `#${step.position} in lane ${step.lane}: ${parts.join(', ')}`;
  if (step.claimed_by_session) why += '; already claimed by this session';
  if (step.wait) why += '; a wait step (nothing to dispatch until its blockers clear)';
  return why;
}

export function shortWhy(step: ScheduleStep): string {
  const parts = [
    step.priority,
    `chain ${step.downstream_depth} deep`,
    `unblocks ${step.unblocks_count}`,
    ...(step.claimed_by_session ? ['yours'] : []),
    ...(step.wait ? ['wait step'] : []),
  ];
  return parts.join(', ');
}

export function nextWorkText(schedule: ScheduleResponse, steps: (ScheduleStep & { why: string })[]): string {
  const lines = [
    `session ${schedule.session_id ?? '-'} · lane ${schedule.lane ?? '-'} · scope ${schedule.scope.join(', ') || '-'}`,
  ];
  if (steps.length === 0) {
    lines.push('nothing runnable for this session');
    for (const p of schedule.projects) {
      const where: string[] = [];
      if (p.other_lanes > 0) where.push(`${p.other_lanes} runnable in other lanes (sessions routed there take them)`);
      if (p.claimed_elsewhere > 0) where.push(`${p.claimed_elsewhere} claimed by other sessions`);
      if (p.wip_suppressed > 0) where.push(`${p.wip_suppressed} held back by the WIP cap`);
      if (where.length > 0) {
        lines.push(`your lane ${schedule.lane ?? '-'} has none in ${p.project}; ${where.join('; ')}`);
      }
    }
    for (const r of schedule.runnable_elsewhere ?? []) lines.push(`runnable elsewhere: ${r.project} (${r.runnable})`);
  }
  // Each step's `why` is said once: both next_work calls of the loop are read by the model.
  for (const s of steps) {
    lines.push(
      `${s.position}. ${s.item_id} [${s.adapter}] ${oneLine(s.title, 80)} → ${s.entrypoint ?? '(no entrypoint)'} (${shortWhy(s)})`,
    );
  }
  return lines.join('\n');
}

export function frontierText(
  project: string,
  counts: Record<string, number>,
  bucket: string,
  items: FrontierItemWire[],
): string {
  const lines = [
    `${project}: ${counts.runnable} runnable, ${counts.blocked} blocked, ${counts.frozen} frozen (${counts.conduct_eligible} conduct-eligible)`,
    `top of ${bucket}:`,
  ];
  for (const i of items) {
    const waits = i.blocked_by.length > 0 ? ` waits on ${i.blocked_by.join(', ')}` : '';
    lines.push(`- ${i.item_id} [${i.adapter}] ${i.priority} ${i.status}: ${oneLine(i.title, 80)}${waits}`);
  }
  if (items.length === 0) lines.push('(none)');
  return lines.join('\n');
}

export function explainText(e: ExplainResponse): string {
  const lines = [`${e.item_id} (${e.project}) is ${e.status}, ${e.bucket}`];
  for (const s of e.summary) lines.push(`- ${oneLine(s, 300)}`);
  for (const f of e.unsatisfied) {
    lines.push(`  waits on ${f.blocker ?? '(missing item)'} [${f.satisfaction}]: ${oneLine(f.need, 200)}`);
  }
  if (e.unblock_roots.length > 0) lines.push(`start first: ${e.unblock_roots.join(', ')}`);
  return lines.join('\n');
}

export function claimText(d: DispatchResponse): string {
  return `claimed ${d.item_id} (${d.project}, ${d.adapter}) for session ${d.session_id} until ${d.claim.expires_at}\nrun: ${d.entrypoint}${runHint(d.entrypoint)}`;
}

function runHint(entrypoint: string | null): string {
  const parsed = parseEntrypoint(entrypoint);
  if (!parsed) return '';
  const args = [`ref: "${parsed.ref}"`, ...(parsed.phase ? [`phase: "${parsed.phase}"`] : [])].join(', ');
  return ` — this server's prompt ${parsed.prompt} {${args}} renders the work`;
}

export function itemText(i: ItemResponse): string {
  return `${i.item_id} [${i.status}, ${i.priority}${i.blocked ? ', blocked' : ''}${i.frozen ? ', frozen' : ''}] ${oneLine(i.title)}`;
}

export function itemWholeText(
  i: ItemResponse & {
    dependencies: { direction: string; other_item: string | null; gate_point: string; satisfied: boolean }[];
    claim: { session_id: number; harness: string } | null;
  },
): string {
  const lines = [itemText(i)];
  if (i.claim) lines.push(`claimed by session ${i.claim.session_id} (${oneLine(i.claim.harness, 60)})`);
  const refs = (direction: string, mark: boolean) =>
    i.dependencies
      .filter((d) => d.direction === direction)
      .map((d) => `${d.other_item ?? '(missing item)'}${mark && d.satisfied ? ' ✓' : ''}`);
  const waits = refs('depends_on', true);
  const blocks = refs('blocks', false);
  const deps = [
    ...(waits.length ? [`waits on ${waits.join(', ')}`] : []),
    ...(blocks.length ? [`blocks ${blocks.join(', ')}`] : []),
  ];
  if (deps.length) lines.push(deps.join('; '));
  if (i.comment_count > 0) {
    lines.push(`${i.comment_count} comment${i.comment_count === 1 ? '' : 's'}, newest first:`);
    for (const c of i.comments) lines.push(`- ${oneLine(c.author ?? 'unknown', 60)}: ${oneLine(c.body, 200)}`);
  }
  return lines.join('\n');
}

export function blockersText(blockers: GateBlockerWire[]): string[] {
  return blockers.map(
    (b) =>
      `- ${b.blocker ?? '(missing item)'} (${b.blocker_status ?? 'unknown'}) [${b.satisfaction}]: ${oneLine(b.need, 200)}`,
  );
}

export function noticeLine(notice: SessionNoticeWire): string {
  const who = `${oneLine(notice.actor ?? 'someone', 60)}${notice.session_id !== null ? ` (session ${notice.session_id}${notice.harness ? `, ${notice.harness}` : ''})` : ''}`;
  if (notice.kind === 'claim_lost') {
    const after = notice.after as { session_id?: number } | null;
    if (after && typeof after.session_id === 'number') {
      return `claim lost: ${notice.item_id} was taken over by ${who} after this session's lease lapsed`;
    }
    const how = notice.forced ? `by ${who}'s forced write` : notice.path === 'sweep' ? 'by the daemon' : `by ${who}`;
    return `claim lost: ${notice.item_id} was released ${how}`;
  }
  if (notice.object === 'comment' && notice.action === 'created') {
    const body = (notice.after as { body?: unknown } | null)?.body;
    return `${notice.item_id}: comment by ${who}: ${oneLine(typeof body === 'string' ? body : '', 200)}`;
  }
  const what = notice.field ? `${notice.field}: ${show(notice.before)} → ${show(notice.after)}` : notice.action;
  return `${notice.item_id} changed by ${who}: ${notice.object === 'item' ? what : `${notice.object} ${notice.object_ref ?? ''} ${notice.action}`}`;
}

function show(value: unknown): string {
  if (value === null || value === undefined) return '∅';
  return oneLine(typeof value === 'string' ? value : JSON.stringify(value), 80);
}
