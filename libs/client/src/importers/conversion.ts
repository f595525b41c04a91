// Refs are given only when the conversion meets its project, so a re-import keeps the refs of the items it imported
// before (matched by their external id).

export type ImportSource = 'beads' | 'taskwarrior';

export interface ConvertedSection {
  section_name: string;
  content: string;
}

export interface ConvertedItem {
  external_id: string;
  title: string;
  body: string | null;
  workflow_id: 'issue' | 'epic';
  status: string;
  priority: 'high' | 'medium' | 'low';
  frozen: 0 | 1;
  blocked: 0 | 1;
  blocked_reason: string | null;
  owner: string | null;
  resolution: 'completed' | 'wontfix' | null;
  resolution_comment: string | null;
  created_at: string | null;
  updated_at: string | null;
  sections: ConvertedSection[];
  links: { type: string; external_id: string }[];
}

export interface ConvertedEdge {
  dependent: string; // external ids
  blocker: string;
  gate_point: 'activation' | 'closure';
  rationale: string;
}

export interface SkippedRecord {
  id: string | null;
  line: number | null;
  reason: string;
}

export interface Conversion {
  source: ImportSource;
  items: ConvertedItem[];
  edges: ConvertedEdge[];
  skipped: SkippedRecord[];
  mapping: string[];
  ready: string[];
}

export class ImportFormatError extends Error {
  constructor(
    readonly line: number | null,
    message: string,
  ) {
    super(line === null ? message : `line ${line}: ${message}`);
  }
}

export const IMPORTED_FROM = 'imported-from';

// A rationale every imported edge carries first, so a re-import knows the edges it owns.
export const edgeMark = (source: ImportSource) => `imported from ${source}`;

export function importedFrom(sections: { section_name: string; content?: string | null }[] | undefined): {
  source: string;
  external_id: string;
} | null {
  const section = sections?.find((s) => s.section_name === IMPORTED_FROM);
  const first = section?.content?.split('\n', 1)[0] ?? '';
  const match = /^(beads|taskwarrior) (\S+)$/.exec(first);
  return match ? { source: match[1], external_id: match[2] } : null;
}

export function isoTime(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0) return null;
  const compact = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  const text = compact ? `${compact[1]}-${compact[2]}-${compact[3]}T${compact[4]}:${compact[5]}:${compact[6]}Z` : value;
  // Date keeps milliseconds: cut finer fractions so the parse never fails on Go's nanoseconds
  const ms = Date.parse(text.replace(/(\.\d{3})\d+/, '$1'));
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

export function prose(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  // eslint-disable-next-line no-control-regex
  const clean = value.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
  return clean.trim().length === 0 ? null : clean;
}

export function oneLine(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}

// The daemon refuses a cycle, and the other tool would never list the items on it as ready either.
export function dropCycles(edges: ConvertedEdge[], skipped: SkippedRecord[]): ConvertedEdge[] {
  const out = new Map<string, Set<string>>(); // blocker -> dependents, activation only
  const reaches = (from: string, to: string): boolean => {
    const seen = new Set<string>([from]);
    const stack = [from];
    while (stack.length > 0) {
      const at = stack.pop()!;
      if (at === to) return true;
      for (const next of out.get(at) ?? []) {
        if (!seen.has(next)) {
          seen.add(next);
          stack.push(next);
        }
      }
    }
    return false;
  };
  const kept: ConvertedEdge[] = [];
  const keys = new Set<string>();
  for (const edge of edges) {
    const key = `${edge.dependent}\u0000${edge.blocker}\u0000${edge.gate_point}`;
    if (keys.has(key)) continue;
    if (edge.dependent === edge.blocker) {
      skipped.push({ id: edge.dependent, line: null, reason: `depends on itself (${edge.rationale})` });
      continue;
    }
    if (edge.gate_point === 'activation') {
      if (reaches(edge.dependent, edge.blocker)) {
        skipped.push({
          id: edge.dependent,
          line: null,
          reason: `dependency on ${edge.blocker} would close a cycle (${edge.rationale})`,
        });
        continue;
      }
      if (!out.has(edge.blocker)) out.set(edge.blocker, new Set());
      out.get(edge.blocker)!.add(edge.dependent);
    }
    keys.add(key);
    kept.push(edge);
  }
  return kept;
}
