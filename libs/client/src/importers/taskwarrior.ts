import {
  Conversion,
  ConvertedEdge,
  ConvertedItem,
  ConvertedSection,
  dropCycles,
  edgeMark,
  IMPORTED_FROM,
  ImportFormatError,
  isoTime,
  oneLine,
  prose,
  SkippedRecord,
} from './conversion';

// Also taken one object a line. The mapping is docs/migrating.md's.

type Json = Record<string, unknown>;

export const TASKWARRIOR_MAPPING = [
  'priority H -> high, M -> medium, L or none -> low',
  'pending -> refined-idea (started: implementing); waiting, or pending with a future wait or scheduled date -> ' +
    'refined-idea, frozen; recurring (the template) -> refined-idea, frozen; completed -> done (resolution ' +
    'completed); deleted -> cancelled (resolution wontfix)',
  'description -> title (and body when longer than one line); annotations -> the comments section',
  'depends (array or comma-separated uuids) -> activation dependencies; one on a deleted task goes to the links ' +
    'section, one missing from the file is left out (neither blocks in Taskwarrior)',
  'uuid, project, tags, priority, entry/modified/end/due/wait/scheduled -> the imported-from section ' +
    '(its first line matches a re-import); entry -> created_at, modified -> updated_at',
];

const UUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;
const STATUSES = new Set(['pending', 'waiting', 'completed', 'deleted', 'recurring']);

export interface TaskLine {
  line: number | null;
  task: Json;
}

function positionLine(text: string, message: string): number | null {
  const line = /\(line (\d+) column \d+\)/.exec(message);
  if (line) return Number(line[1]);
  const position = /at position (\d+)/.exec(message);
  if (!position) return null;
  return text.slice(0, Number(position[1])).split('\n').length;
}

export function parseTaskwarrior(text: string): TaskLine[] {
  const lines = text.split('\n');
  const perLine: TaskLine[] = [];
  let lineWise = true;
  let failedAt: number | null = null;
  for (let i = 0; i < lines.length && lineWise; i++) {
    let raw = lines[i].trim();
    if (raw === '[' || raw === ']' || raw === '' || raw === '[]') continue;
    if (raw.startsWith('[')) raw = raw.slice(1);
    if (raw.endsWith(']')) raw = raw.slice(0, -1);
    if (raw.endsWith(',')) raw = raw.slice(0, -1);
    try {
      const value: unknown = JSON.parse(raw);
      if (typeof value !== 'object' || value === null || Array.isArray(value)) lineWise = false;
      else perLine.push({ line: i + 1, task: value as Json });
    } catch {
      lineWise = false;
    }
    if (!lineWise) failedAt = i + 1;
  }
  let tasks: TaskLine[];
  if (lineWise) {
    tasks = perLine;
  } else {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      const message = (err as Error).message;
      // tasks one a line before the bad one: that line is the culprit (JSON.parse notices the error later)
      const line = perLine.length > 0 && failedAt !== null ? failedAt : positionLine(text, message);
      throw new ImportFormatError(line, `not valid JSON (${message})`);
    }
    if (!Array.isArray(value)) throw new ImportFormatError(null, 'not a JSON array of tasks (task export)');
    tasks = value.map((task: unknown, i) => {
      if (typeof task !== 'object' || task === null || Array.isArray(task)) {
        throw new ImportFormatError(null, `task #${i + 1} is not a JSON object`);
      }
      return { line: null, task: task as Json };
    });
  }
  const seen = new Set<string>();
  tasks.forEach((t, i) => {
    const where = (message: string) =>
      new ImportFormatError(t.line, t.line === null ? `task #${i + 1}: ${message}` : message);
    const uuid = t.task.uuid;
    if (typeof uuid !== 'string' || !UUID.test(uuid)) throw where('has no uuid');
    if (typeof t.task.description !== 'string') throw where(`${uuid} has no description`);
    if (typeof t.task.status !== 'string' || !STATUSES.has(t.task.status)) {
      throw where(`${uuid} has an unknown status ${JSON.stringify(t.task.status)}`);
    }
    if (seen.has(uuid.toLowerCase())) throw where(`${uuid} appears twice`);
    seen.add(uuid.toLowerCase());
    dependsOf(t.task, where);
  });
  return tasks;
}

function dependsOf(task: Json, fail: (message: string) => Error = (m) => new ImportFormatError(null, m)): string[] {
  const value = task.depends;
  if (value === undefined || value === null || value === '') return [];
  const list = typeof value === 'string' ? value.split(',') : value;
  if (!Array.isArray(list)) throw fail('depends is neither a list nor a comma-separated string');
  return list.map((u: unknown) => {
    if (typeof u !== 'string' || !UUID.test(u.trim())) throw fail(`depends holds ${JSON.stringify(u)}, not a uuid`);
    return u.trim().toLowerCase();
  });
}

const inFuture = (value: unknown, now: number) => {
  const t = isoTime(value);
  return t !== null && Date.parse(t) > now;
};

// A recurring template blocks, as Taskwarrior 2.6.2 shows, and is never ready itself.
export function taskwarriorReady(tasks: Json[], now: number): string[] {
  const status = new Map(tasks.map((t) => [(t.uuid as string).toLowerCase(), effectiveStatus(t, now)]));
  return tasks
    .filter((t) => effectiveStatus(t, now) === 'pending' && !inFuture(t.scheduled, now))
    .filter((t) =>
      dependsOf(t).every((d) => !status.has(d) || status.get(d) === 'completed' || status.get(d) === 'deleted'),
    )
    .map((t) => (t.uuid as string).toLowerCase());
}

function effectiveStatus(task: Json, now: number): string {
  const s = task.status as string;
  return s === 'pending' && inFuture(task.wait, now) ? 'waiting' : s;
}

function metadata(task: Json): string {
  const lines = [`taskwarrior ${(task.uuid as string).toLowerCase()}`];
  const add = (key: string, value: unknown) => {
    if (value === undefined || value === null || value === '') return;
    const text = Array.isArray(value) ? value.map(String).join(', ') : String(value);
    if (text.length > 0) lines.push(`${key}: ${oneLine(text)}`);
  };
  for (const key of ['id', 'status', 'project', 'tags', 'priority', 'entry', 'modified', 'start', 'end', 'due']) {
    add(key, Array.isArray(task[key]) && (task[key] as unknown[]).length === 0 ? null : task[key]);
  }
  for (const key of ['wait', 'scheduled', 'until', 'recur', 'urgency']) add(key, task[key]);
  return lines.join('\n');
}

export function convertTaskwarrior(text: string, now = Date.now()): Conversion {
  const tasks = parseTaskwarrior(text);
  const skipped: SkippedRecord[] = [];
  const byUuid = new Map(tasks.map((t) => [(t.task.uuid as string).toLowerCase(), t]));
  const items: ConvertedItem[] = [];
  const edges: ConvertedEdge[] = [];
  const mark = edgeMark('taskwarrior');
  for (const { line, task } of tasks) {
    const uuid = (task.uuid as string).toLowerCase();
    const links: { type: string; external_id: string }[] = [];
    for (const dep of dependsOf(task)) {
      const blocker = byUuid.get(dep);
      if (!blocker) {
        skipped.push({ id: uuid, line, reason: `depends on ${dep}: not a task of the file: left out` });
      } else if (blocker.task.status === 'deleted') {
        // Taskwarrior: a dependency blocks until it is completed or deleted
        links.push({ type: 'depends on (deleted, not blocking)', external_id: dep });
      } else {
        edges.push({ dependent: uuid, blocker: dep, gate_point: 'activation', rationale: `${mark}: depends` });
      }
    }
    const status = effectiveStatus(task, now);
    const waiting = status === 'waiting' || status === 'recurring' || inFuture(task.scheduled, now);
    const done = status === 'completed';
    const deleted = status === 'deleted';
    const sections: ConvertedSection[] = [];
    const annotations = Array.isArray(task.annotations)
      ? (task.annotations as unknown[])
          .filter((a): a is Json => typeof a === 'object' && a !== null)
          .map((a) => {
            const when = isoTime(a.entry);
            return `${when ?? 'undated'}:\n${prose(a.description) ?? ''}`.trimEnd();
          })
      : [];
    if (annotations.length > 0) sections.push({ section_name: 'comments', content: annotations.join('\n\n') });
    sections.push({ section_name: IMPORTED_FROM, content: metadata(task) });
    const description = task.description as string;
    const title = oneLine(description);
    const priority = task.priority === 'H' ? 'high' : task.priority === 'M' ? 'medium' : 'low';
    items.push({
      external_id: uuid,
      title: title.length > 0 ? title : '(untitled)',
      body: description.includes('\n') ? prose(description) : null,
      workflow_id: 'issue',
      status: done ? 'done' : deleted ? 'cancelled' : task.start ? 'implementing' : 'refined-idea',
      priority,
      frozen: !done && !deleted && waiting ? 1 : 0,
      blocked: 0,
      blocked_reason: null,
      owner: null,
      resolution: done ? 'completed' : deleted ? 'wontfix' : null,
      resolution_comment: null,
      created_at: isoTime(task.entry),
      updated_at: isoTime(task.modified),
      sections,
      links,
    });
  }
  return {
    source: 'taskwarrior',
    items,
    edges: dropCycles(edges, skipped),
    skipped,
    mapping: TASKWARRIOR_MAPPING,
    ready: taskwarriorReady(
      tasks.map((t) => t.task),
      now,
    ),
  };
}
