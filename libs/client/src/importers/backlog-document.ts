import { Conversion, ConvertedItem, edgeMark, IMPORTED_FROM, importedFrom } from './conversion';

// Built on the project's own export so that everything else in it is sent back unchanged. Items imported before
// (same source and external id in `imported-from`) keep their refs; edges whose rationale starts "imported from
// <source>" are the importer's to add or remove.

type Json = Record<string, unknown>;

export interface TargetProject {
  id: string;
  prefix: string;
  name?: string;
}

export interface ImportPlan {
  document: Json;
  changed: boolean;
  created: number;
  updated: number;
  unchanged: number;
  dependencies_added: number;
  dependencies_removed: number;
  dependencies: number;
  refs: Map<string, string>;
  replace: boolean;
}

// Sections the importers write: on re-import each is set, or removed when the source no longer has it.
export const OWNED_SECTIONS = ['design', 'acceptance-criteria', 'notes', 'comments', 'links', IMPORTED_FROM];

const OWNED_FIELDS = [
  'title',
  'body',
  'status',
  'priority',
  'frozen',
  'blocked',
  'blocked_reason',
  'owner',
  'resolution',
  'resolution_comment',
  'created_at',
  'updated_at',
] as const;

const TIME_FIELDS = new Set(['created_at', 'updated_at']);

function sameValue(field: string, a: unknown, b: unknown): boolean {
  if (TIME_FIELDS.has(field)) {
    if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
    return Date.parse(String(a)) === Date.parse(String(b));
  }
  const norm = (v: unknown) => (v === undefined || v === '' ? null : v);
  return norm(a) === norm(b);
}

const sequenceOf = (ref: string) => Number(ref.slice(ref.lastIndexOf('-') + 1));

function cutTitle(item: ConvertedItem, max: number): { title: string; body: string | null } {
  if (item.title.length <= max) return { title: item.title, body: item.body };
  const title = `${item.title.slice(0, Math.max(1, max - 1))}…`;
  return { title, body: [`Full title: ${item.title}`, item.body].filter((x) => x !== null).join('\n\n') };
}

export function buildImportDocument(conversion: Conversion, target: TargetProject, existing: Json | null): ImportPlan {
  const project = (existing?.project as Json | undefined) ?? {
    id: target.id,
    name: target.name ?? target.id,
    public_item_prefix: target.prefix,
  };
  const prefix = project.public_item_prefix as string;
  const policy = (project.policy as Json | undefined) ?? {};
  const titleMax = typeof policy.title_max_length === 'number' ? policy.title_max_length : 200;
  const existingItems = ((existing?.items as Json[] | undefined) ?? []).slice();
  const existingDeps = (existing?.dependencies as Json[] | undefined) ?? [];

  const mine = new Map<string, Json>();
  for (const item of existingItems) {
    const from = importedFrom(item.sections as Json[] as { section_name: string; content?: string | null }[]);
    if (from && from.source === conversion.source) mine.set(from.external_id, item);
  }
  let next = Math.max(
    typeof project.next_sequence === 'number' ? project.next_sequence : 1,
    ...existingItems.map((i) => sequenceOf(i.ref as string) + 1),
  );
  const refs = new Map<string, string>();
  for (const item of conversion.items) {
    const known = mine.get(item.external_id);
    refs.set(item.external_id, known ? (known.ref as string) : `${prefix}-${next++}`);
  }

  const linksOf = (item: ConvertedItem): string | null =>
    item.links.length === 0
      ? null
      : item.links
          .map((l) => {
            const ref = refs.get(l.external_id);
            return `- ${l.type} ${l.external_id}${ref ? ` (${ref})` : ''}`;
          })
          .join('\n');

  let created = 0;
  let updated = 0;
  let unchanged = 0;
  const replaced = new Map<string, Json>();
  const added: Json[] = [];
  for (const item of conversion.items) {
    const ref = refs.get(item.external_id)!;
    const { title, body } = cutTitle(item, titleMax);
    const wanted: Json = {
      title,
      body,
      status: item.status,
      priority: item.priority,
      frozen: item.frozen,
      blocked: item.blocked,
      blocked_reason: item.blocked_reason,
      owner: item.owner,
      resolution: item.resolution,
      resolution_comment: item.resolution_comment,
      created_at: item.created_at,
      updated_at: item.updated_at,
    };
    const sections = [...item.sections];
    const links = linksOf(item);
    if (links !== null) sections.splice(sections.length - 1, 0, { section_name: 'links', content: links });
    const known = mine.get(item.external_id);
    if (!known) {
      const doc: Json = { ref, workflow_id: item.workflow_id };
      for (const [k, v] of Object.entries(wanted)) if (v !== null) doc[k] = v;
      doc.sections = sections.map((s, i) => ({ ...s, ordering: i }));
      added.push(doc);
      created += 1;
      continue;
    }
    const knownSections = (known.sections as Json[] | undefined) ?? [];
    const ownedNow = knownSections.filter((s) => OWNED_SECTIONS.includes(s.section_name as string));
    const sectionsSame =
      ownedNow.length === sections.length &&
      sections.every((s) => ownedNow.some((k) => k.section_name === s.section_name && k.content === s.content));
    const fieldsSame = OWNED_FIELDS.every((f) => sameValue(f, known[f], wanted[f]));
    if (fieldsSame && sectionsSame && known.workflow_id === item.workflow_id) {
      unchanged += 1;
      continue;
    }
    const doc: Json = { ...known };
    for (const f of OWNED_FIELDS) {
      if (wanted[f] === null && TIME_FIELDS.has(f)) continue;
      doc[f] = wanted[f];
    }
    if (known.workflow_id !== item.workflow_id) {
      doc.workflow_id = item.workflow_id;
      delete doc.workflow_version;
    }
    const others = knownSections.filter((s) => !OWNED_SECTIONS.includes(s.section_name as string));
    const base = others.reduce((m, s) => Math.max(m, Number(s.ordering ?? 0) + 1), 0);
    doc.sections = [
      ...others,
      ...sections.map((s, i) => {
        const before = knownSections.find((k) => k.section_name === s.section_name);
        return before && before.content === s.content ? before : { ...s, ordering: base + i };
      }),
    ];
    replaced.set(ref, doc);
    updated += 1;
  }
  const items = [...existingItems.map((i) => replaced.get(i.ref as string) ?? i), ...added];

  const mark = edgeMark(conversion.source);
  const key = (d: Json) =>
    `${d.dependent as string}|${d.blocker as string}|${(d.gate_point as string) ?? 'activation'}`;
  const ownedDeps = new Map<string, Json>();
  const keptDeps: Json[] = [];
  for (const d of existingDeps) {
    if (typeof d.rationale === 'string' && d.rationale.startsWith(mark)) ownedDeps.set(key(d), d);
    else keptDeps.push(d);
  }
  let dependenciesAdded = 0;
  let reused = 0;
  const wantedKeys = new Set<string>();
  for (const e of conversion.edges) {
    const d: Json = {
      dependent: refs.get(e.dependent)!,
      blocker: refs.get(e.blocker)!,
      gate_point: e.gate_point,
      satisfaction: 'status:done',
      source: 'migration',
      rationale: e.rationale,
    };
    const k = key(d);
    if (wantedKeys.has(k)) continue;
    wantedKeys.add(k);
    const before = ownedDeps.get(k);
    if (before && before.rationale === e.rationale) {
      keptDeps.push(before);
      reused += 1;
    } else {
      keptDeps.push(d);
      dependenciesAdded += 1;
    }
  }
  const dependenciesRemoved = ownedDeps.size - reused;

  const document: Json = {
    ...(existing ?? { format: 'svc-backlog/v1' }),
    project,
    items,
    dependencies: keptDeps,
  };
  return {
    document,
    changed: created + updated + dependenciesAdded + dependenciesRemoved > 0,
    created,
    updated,
    unchanged,
    dependencies_added: dependenciesAdded,
    dependencies_removed: dependenciesRemoved,
    dependencies: conversion.edges.length,
    refs,
    replace: existingItems.length > 0,
  };
}
