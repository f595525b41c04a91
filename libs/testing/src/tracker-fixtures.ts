// Deterministic (a seeded generator), so a failure repeats.

type Json = Record<string, unknown>;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const T0 = Date.parse('2026-01-05T09:00:00Z');
// Go writes nanoseconds and an offset: the importer must read both
const goTime = (minutes: number) =>
  new Date(T0 + minutes * 60_000)
    .toISOString()
    .replace('Z', '')
    .replace(/\.(\d{3})$/, '.$1456789') + '+00:00';

// A small beads project: every status, type, priority and dependency type, comments, labels and a hostile title.
export function beadsFixture(): Json[] {
  const issue = (id: string, over: Json): Json => ({
    id,
    title: `Issue ${id}`,
    description: `Description of ${id}`,
    status: 'open',
    priority: 2,
    issue_type: 'task',
    created_at: goTime(1),
    updated_at: goTime(2),
    ...over,
  });
  const dep = (from: string, to: string, type: string): Json => ({
    issue_id: from,
    depends_on_id: to,
    type,
    created_at: goTime(3),
    created_by: 'alice',
  });
  return [
    issue('bd-e1', {
      title: 'Epic: ship the importer',
      issue_type: 'epic',
      priority: 0,
      design: 'Design: two converters',
      acceptance_criteria: 'bd ready equals svc runnable',
      notes: 'notes here',
      labels: ['migration', 'cli'],
      assignee: 'alice',
      dependencies: [dep('bd-e1', 'bd-b1', 'blocks')],
    }),
    issue('bd-c1', {
      title: 'Child of the blocked epic',
      priority: 1,
      dependencies: [dep('bd-c1', 'bd-e1', 'parent-child')],
    }),
    issue('bd-g1', {
      title: 'Grandchild',
      priority: 3,
      dependencies: [dep('bd-g1', 'bd-c1', 'parent-child')],
    }),
    issue('bd-b1', { title: 'Blocker still open', issue_type: 'bug', priority: 1 }),
    issue('bd-d1', {
      title: 'Blocked by a closed one',
      issue_type: 'feature',
      dependencies: [dep('bd-d1', 'bd-x1', 'blocks'), dep('bd-d1', 'bd-b1', 'discovered-from')],
    }),
    issue('bd-x1', {
      title: 'Closed blocker',
      status: 'closed',
      closed_at: goTime(10),
      close_reason: 'Fixed in abc123',
      issue_type: 'chore',
      priority: 4,
    }),
    issue('bd-p1', { title: 'In progress', status: 'in_progress', dependencies: [dep('bd-p1', 'bd-d1', 'related')] }),
    issue('bd-s1', { title: 'Marked blocked', status: 'blocked' }),
    issue('bd-f1', { title: 'Deferred', status: 'deferred' }),
    issue('bd-h1', { title: 'Custom status', status: 'hooked' }),
    issue('bd-t1', { title: 'Tombstone', status: 'tombstone' }),
    issue('bd-w1', {
      title: 'Waits on a tombstone and an outsider',
      dependencies: [dep('bd-w1', 'bd-t1', 'blocks'), dep('bd-w1', 'external:other-9', 'blocks')],
    }),
    issue('bd-q1', {
      title: 'Hostile "title" [with] {braces} <b>tags</b> | pipes; end',
      description: 'line one\nline two',
      comments: [
        { id: 1, issue_id: 'bd-q1', author: 'bob', text: 'first comment', created_at: goTime(5) },
        { id: 2, issue_id: 'bd-q1', author: 'carol', text: 'second\ncomment', created_at: goTime(6) },
      ],
      dependencies: [dep('bd-q1', 'bd-b1', 'blocks'), dep('bd-q1', 'bd-p1', 'blocks')],
    }),
  ];
}

export const toJsonl = (rows: Json[]) => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;

// blocks edges always point to an earlier issue: no cycle.
export function bigBeadsFixture(issues = 3000, dependencies = 1000, seed = 41): Json[] {
  const random = rng(seed);
  const statuses = ['open', 'open', 'open', 'in_progress', 'blocked', 'deferred', 'closed', 'closed'];
  const rows: Json[] = [];
  for (let i = 1; i <= issues; i++) {
    rows.push({
      id: `bd-${i.toString(36)}`,
      title: `Generated issue ${i}`,
      description: `Body ${i}`,
      status: statuses[Math.floor(random() * statuses.length)],
      priority: Math.floor(random() * 5),
      issue_type: i % 50 === 0 ? 'epic' : 'task',
      created_at: goTime(i),
      updated_at: goTime(i + 1),
      dependencies: [],
    });
  }
  for (let n = 0; n < dependencies; n++) {
    const a = 2 + Math.floor(random() * (issues - 1));
    const b = 1 + Math.floor(random() * (a - 1));
    const row = rows[a - 1];
    const type = n % 10 === 0 ? 'parent-child' : n % 10 === 1 ? 'related' : 'blocks';
    (row.dependencies as Json[]).push({ issue_id: row.id, depends_on_id: rows[b - 1].id, type });
  }
  return rows;
}

const uuidOf = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const twTime = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString().replace(/[-:]|\.\d{3}/g, '');

export function taskwarriorFixture(now = Date.parse('2026-06-01T00:00:00Z')): Json[] {
  const future = new Date(now + 30 * 86_400_000).toISOString().replace(/[-:]|\.\d{3}/g, '');
  const task = (n: number, over: Json): Json => ({
    id: n,
    uuid: uuidOf(n),
    description: `Task ${n}`,
    status: 'pending',
    entry: twTime(n),
    modified: twTime(n + 1),
    urgency: 1.5,
    ...over,
  });
  return [
    task(1, { description: 'Pending, high', priority: 'H', project: 'home.garden', tags: ['outdoor', 'weekend'] }),
    task(2, { description: 'Depends on 1 (array)', priority: 'M', depends: [uuidOf(1)] }),
    task(3, { description: 'Depends on 5 (comma string, completed)', priority: 'L', depends: `${uuidOf(5)}` }),
    task(4, { description: 'Depends on 1 and 5 (comma string)', depends: `${uuidOf(1)},${uuidOf(5)}` }),
    task(5, { description: 'Completed', status: 'completed', end: twTime(20) }),
    task(6, { description: 'Deleted', status: 'deleted', end: twTime(21) }),
    task(7, { description: 'Depends on the deleted one', depends: [uuidOf(6)] }),
    task(8, { description: 'Waiting', status: 'waiting', wait: future }),
    task(9, { description: 'Pending but wait in the future', wait: future }),
    task(10, { description: 'Depends on a waiting task', depends: [uuidOf(8)] }),
    task(11, { description: 'Recurring template', status: 'recurring', recur: 'weekly', due: twTime(100) }),
    task(12, { description: 'Scheduled later', scheduled: future }),
    task(13, {
      description: 'Annotated, started',
      start: twTime(30),
      annotations: [
        { entry: twTime(31), description: 'first note' },
        { entry: twTime(32), description: 'second note' },
      ],
    }),
    task(14, { description: 'Depends on the recurring template', depends: [uuidOf(11)] }),
  ];
}

// `task export`'s own layout: an array, one task a line.
export const toTaskExport = (rows: Json[]) => `[\n${rows.map((r) => JSON.stringify(r)).join(',\n')}\n]\n`;
