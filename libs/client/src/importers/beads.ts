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

type Json = Record<string, unknown>;

export const BEADS_MAPPING = [
  'priority 0-1 -> high, 2 -> medium, 3-4 -> low (the number is kept in the imported-from section)',
  'open -> refined-idea; in_progress -> implementing; blocked -> refined-idea with the blocked flag; ' +
    'deferred -> refined-idea, frozen; closed -> done (resolution completed, close_reason as its comment); ' +
    'tombstone -> skipped; any other status -> refined-idea with the blocked flag',
  'issue_type epic -> the epic workflow, every other type -> the issue workflow (the type is kept)',
  'description -> body; design, acceptance_criteria, notes, comments -> sections; assignee -> owner',
  'blocks -> activation dependency; parent-child -> the parent waits for the child at closure (a link instead ' +
    'when the parent is closed already), and the child waits at activation on every blocker of its ancestors ' +
    '(bd ready: blocking passes to children)',
  'discovered-from, related and any other type -> the links section (non-blocking)',
  'id, type, labels, priority, timestamps -> the imported-from section (its first line matches a re-import)',
];

const STATUS: Record<string, { status: string; frozen?: 1; blocked?: string; resolution?: 'completed' }> = {
  open: { status: 'refined-idea' },
  in_progress: { status: 'implementing' },
  blocked: { status: 'refined-idea', blocked: 'blocked in beads' },
  deferred: { status: 'refined-idea', frozen: 1 },
  closed: { status: 'done', resolution: 'completed' },
};

const ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;

function priorityOf(value: unknown): 'high' | 'medium' | 'low' {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n)) return 'medium';
  if (n <= 1) return 'high';
  return n === 2 ? 'medium' : 'low';
}

export interface BeadsLine {
  line: number;
  issue: Json;
}

export function parseBeads(text: string, onLine?: (line: number, total: number) => void): BeadsLine[] {
  const lines = text.split('\n');
  const out: BeadsLine[] = [];
  const seen = new Map<string, number>();
  for (let i = 0; i < lines.length; i++) {
    onLine?.(i + 1, lines.length);
    const raw = lines[i].trim();
    if (raw.length === 0) continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      throw new ImportFormatError(i + 1, `not valid JSON (${(err as Error).message})`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new ImportFormatError(i + 1, 'not a JSON object (one issue a line)');
    }
    const issue = value as Json;
    if (typeof issue.id !== 'string' || !ID.test(issue.id)) {
      throw new ImportFormatError(i + 1, 'has no id (a string such as bd-a1b2)');
    }
    if (typeof issue.title !== 'string') throw new ImportFormatError(i + 1, `${issue.id} has no title`);
    if (issue.dependencies !== undefined && issue.dependencies !== null && !Array.isArray(issue.dependencies)) {
      throw new ImportFormatError(i + 1, `${issue.id}: dependencies is not a list`);
    }
    if (seen.has(issue.id)) {
      throw new ImportFormatError(i + 1, `${issue.id} appears again (first on line ${seen.get(issue.id)})`);
    }
    seen.set(issue.id, i + 1);
    out.push({ line: i + 1, issue });
  }
  return out;
}

interface Dep {
  from: string; // issue_id
  to: string; // depends_on_id: the blocker or the parent
  type: string;
}

function depsOf(entry: BeadsLine): Dep[] {
  const id = entry.issue.id as string;
  const list = (entry.issue.dependencies as unknown[] | undefined | null) ?? [];
  const out: Dep[] = [];
  for (const d of list) {
    if (typeof d !== 'object' || d === null)
      throw new ImportFormatError(entry.line, `${id}: a dependency is not an object`);
    const dep = d as Json;
    const to = dep.depends_on_id;
    if (typeof to !== 'string' || to.length === 0) {
      throw new ImportFormatError(entry.line, `${id}: a dependency has no depends_on_id`);
    }
    const from = typeof dep.issue_id === 'string' && dep.issue_id.length > 0 ? dep.issue_id : id;
    out.push({ from, to, type: typeof dep.type === 'string' && dep.type.length > 0 ? dep.type : 'blocks' });
  }
  return out;
}

function commentsOf(issue: Json): string | null {
  if (!Array.isArray(issue.comments) || issue.comments.length === 0) return null;
  const parts = (issue.comments as unknown[])
    .filter((c): c is Json => typeof c === 'object' && c !== null)
    .map((c) => {
      const who = typeof c.author === 'string' ? oneLine(c.author) : 'someone';
      const when = isoTime(c.created_at);
      return `${who}${when ? ` (${when})` : ''}:\n${prose(c.text) ?? ''}`.trimEnd();
    });
  return parts.length > 0 ? parts.join('\n\n') : null;
}

function metadata(issue: Json): string {
  const lines = [`beads ${issue.id as string}`];
  const add = (key: string, value: unknown) => {
    if (value === undefined || value === null || value === '') return;
    const text = Array.isArray(value) ? value.map(String).join(', ') : String(value);
    if (text.length > 0) lines.push(`${key}: ${oneLine(text)}`);
  };
  add('type', issue.issue_type);
  add('status', issue.status);
  add('priority', issue.priority);
  add('labels', Array.isArray(issue.labels) && issue.labels.length > 0 ? issue.labels : null);
  add('assignee', issue.assignee);
  add('created_at', issue.created_at);
  add('updated_at', issue.updated_at);
  add('closed_at', issue.closed_at);
  add('close_reason', issue.close_reason);
  add('external_ref', issue.external_ref);
  return lines.join('\n');
}

export function convertBeads(text: string, onLine?: (line: number, total: number) => void): Conversion {
  const entries = parseBeads(text, onLine);
  const skipped: SkippedRecord[] = [];
  const kept = entries.filter((e) => {
    if (e.issue.status !== 'tombstone') return true;
    skipped.push({ id: e.issue.id as string, line: e.line, reason: 'tombstone (deleted in beads)' });
    return false;
  });
  const byId = new Map(kept.map((e) => [e.issue.id as string, e]));
  const statusOf = (id: string) => byId.get(id)?.issue.status;

  const items: ConvertedItem[] = [];
  const blocks: Dep[] = [];
  const parents = new Map<string, string[]>(); // child -> parents
  const edges: ConvertedEdge[] = [];
  const mark = edgeMark('beads');
  for (const entry of kept) {
    const issue = entry.issue;
    const id = issue.id as string;
    const links: { type: string; external_id: string }[] = [];
    for (const dep of depsOf(entry)) {
      if (dep.from !== id) {
        skipped.push({ id, line: entry.line, reason: `dependency of ${dep.from} listed under ${id}: left out` });
        continue;
      }
      if (!byId.has(dep.to)) {
        skipped.push({
          id,
          line: entry.line,
          reason: `${dep.type} ${dep.to}: not an issue of the file (or a tombstone): left out`,
        });
        continue;
      }
      if (dep.type === 'blocks') {
        blocks.push(dep);
        edges.push({ dependent: id, blocker: dep.to, gate_point: 'activation', rationale: `${mark}: blocks` });
      } else if (dep.type === 'parent-child') {
        parents.set(id, [...(parents.get(id) ?? []), dep.to]);
        // a parent closed before this child: svc would refuse that status behind an open closure edge (stage gates
        // on a re-import), so the edge is left out and the relation kept as a link
        if (statusOf(dep.to) === 'closed' && issue.status !== 'closed') {
          links.push({ type: 'child of (closed before this child)', external_id: dep.to });
          continue;
        }
        edges.push({
          dependent: dep.to,
          blocker: id,
          gate_point: 'closure',
          rationale: `${mark}: parent-child (the parent closes after its children)`,
        });
      } else {
        links.push({ type: dep.type, external_id: dep.to });
      }
    }

    const status = typeof issue.status === 'string' ? issue.status : 'open';
    const mapped = STATUS[status] ?? { status: 'refined-idea', blocked: `beads status ${oneLine(status)}` };
    const sections: ConvertedSection[] = [];
    const section = (name: string, value: unknown) => {
      const content = prose(value);
      if (content !== null) sections.push({ section_name: name, content });
    };
    section('design', issue.design);
    section('acceptance-criteria', issue.acceptance_criteria);
    section('notes', issue.notes);
    section('comments', commentsOf(issue));
    sections.push({ section_name: IMPORTED_FROM, content: metadata(issue) });
    const title = oneLine(issue.title as string);
    items.push({
      external_id: id,
      title: title.length > 0 ? title : '(untitled)',
      body: prose(issue.description),
      workflow_id: issue.issue_type === 'epic' ? 'epic' : 'issue',
      status: mapped.status,
      priority: priorityOf(issue.priority),
      frozen: mapped.frozen ?? 0,
      blocked: mapped.blocked ? 1 : 0,
      blocked_reason: mapped.blocked ?? null,
      owner:
        typeof issue.assignee === 'string' && issue.assignee.length > 0 ? oneLine(issue.assignee).slice(0, 100) : null,
      resolution: mapped.resolution ?? null,
      resolution_comment: mapped.resolution ? prose(issue.close_reason) : null,
      created_at: isoTime(issue.created_at),
      updated_at: isoTime(issue.updated_at),
      sections,
      links,
    });
  }

  // bd ready: blocking passes from a parent to its children, to any depth. Each child waits at activation on the
  // blockers of each of its ancestors, so it turns runnable exactly when they close.
  const blockersOf = new Map<string, string[]>();
  for (const b of blocks) blockersOf.set(b.from, [...(blockersOf.get(b.from) ?? []), b.to]);
  const ancestorsOf = (id: string): string[] => {
    const seen = new Set<string>();
    const stack = [...(parents.get(id) ?? [])];
    while (stack.length > 0) {
      const p = stack.pop()!;
      if (seen.has(p) || p === id) continue;
      seen.add(p);
      stack.push(...(parents.get(p) ?? []));
    }
    return [...seen];
  };
  for (const item of items) {
    for (const ancestor of ancestorsOf(item.external_id)) {
      for (const blocker of blockersOf.get(ancestor) ?? []) {
        if (blocker === item.external_id) continue;
        edges.push({
          dependent: item.external_id,
          blocker,
          gate_point: 'activation',
          rationale: `${mark}: inherited from parent ${ancestor} (blocks)`,
        });
      }
    }
  }
  const keptEdges = dropCycles(edges, skipped);

  return {
    source: 'beads',
    items,
    edges: keptEdges,
    skipped,
    mapping: BEADS_MAPPING,
    ready: beadsReady(
      kept.map((e) => e.issue),
      statusOf,
    ),
  };
}

// Blockers missing from the file, or tombstones, do not block.
export function beadsReady(issues: Json[], statusOf: (id: string) => unknown): string[] {
  const open = (id: string) => {
    const s = statusOf(id);
    return s !== undefined && s !== 'closed' && s !== 'tombstone';
  };
  const blocked = new Map<string, boolean>();
  const parents = new Map<string, string[]>();
  const direct = new Set<string>();
  for (const issue of issues) {
    const id = issue.id as string;
    for (const d of (issue.dependencies as Json[] | undefined | null) ?? []) {
      const to = d.depends_on_id as string;
      const type = (d.type as string | undefined) || 'blocks';
      if (type === 'blocks' && open(to)) direct.add(id);
      if (type === 'parent-child' && statusOf(to) !== undefined) parents.set(id, [...(parents.get(id) ?? []), to]);
    }
  }
  const isBlocked = (id: string, path: Set<string>): boolean => {
    if (blocked.has(id)) return blocked.get(id)!;
    if (direct.has(id)) return true;
    path.add(id);
    const result = (parents.get(id) ?? []).some((p) => !path.has(p) && isBlocked(p, path));
    path.delete(id);
    blocked.set(id, result);
    return result;
  };
  return issues.filter((i) => i.status === 'open' && !isBlocked(i.id as string, new Set())).map((i) => i.id as string);
}
