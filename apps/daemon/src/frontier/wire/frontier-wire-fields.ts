import type { FrontierItemWire } from '@app/contracts';
import { FrontierItem, toZonelessIso } from '@app/core';

// This one table drives the mapper, the hand-written serializer and sameWireFields, so a field is mapped, written
// and compared, or in none of the three (and the serializer's tests fail). See docs/frontier-read-path.md.

type RefOf = (id: number) => string | undefined;

export type WireKind = 'text' | 'word' | 'number' | 'timestamp' | 'refs' | 'texts';

interface KindSource {
  text: string;
  word: string;
  number: number;
  timestamp: string;
  refs: readonly number[];
  texts: readonly string[];
}

type SourceOf<K extends WireKind> = {
  [P in keyof FrontierItem]: FrontierItem[P] extends KindSource[K] ? P : never;
}[keyof FrontierItem];

export type WireField = {
  [K in WireKind]: { key: keyof FrontierItemWire; kind: K; from: SourceOf<K> };
}[WireKind];

export const FRONTIER_ITEM_WIRE_FIELDS = [
  { key: 'item_id', kind: 'text', from: 'ref' },
  { key: 'title', kind: 'text', from: 'title' },
  { key: 'status', kind: 'word', from: 'status' },
  { key: 'priority', kind: 'word', from: 'priority' },
  { key: 'project', kind: 'word', from: 'project' },
  { key: 'workflow_id', kind: 'word', from: 'workflow_id' },
  { key: 'workflow_version_id', kind: 'number', from: 'workflow_version_id' },
  { key: 'adapter', kind: 'word', from: 'adapter' },
  { key: 'blocked_by', kind: 'refs', from: 'blocked_by' },
  { key: 'blocked_reasons', kind: 'texts', from: 'blocked_reasons' },
  { key: 'unblocks_count', kind: 'number', from: 'unblocks_count' },
  { key: 'downstream_depth', kind: 'number', from: 'downstream_depth' },
  { key: 'created_at', kind: 'timestamp', from: 'created_at' },
] as const satisfies readonly WireField[];

// A compile error names a wire key left out of the table.
type Covered = (typeof FRONTIER_ITEM_WIRE_FIELDS)[number]['key'];
const EVERY_KEY_COVERED: Exclude<keyof FrontierItemWire, Covered> extends never ? true : never = true;
void EVERY_KEY_COVERED;

const FIELDS: readonly WireField[] = FRONTIER_ITEM_WIRE_FIELDS;

function sameArrays<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

// The identity contract: items with equal wire-field values (arrays element by element) have byte-identical JSON
// as long as their blockers' refs are unchanged (the serializer checks that per blocker, see knownRefs).
export function sameWireFields(a: FrontierItem, b: FrontierItem): boolean {
  if (a === b) return true;
  for (let f = 0; f < FIELDS.length; f++) {
    const { kind, from } = FIELDS[f];
    if (kind === 'refs' || kind === 'texts') {
      if (!sameArrays<unknown>(a[from], b[from])) return false;
    } else if (a[from] !== b[from]) {
      return false;
    }
  }
  return true;
}

// JSON.stringify escapes only quotes, backslashes, control characters and surrogates: without those, no call.
// eslint-disable-next-line no-control-regex
const PLAIN = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;
export function quote(value: string): string {
  return PLAIN.test(value) ? `"${value}"` : JSON.stringify(value);
}

const QUOTED = new Map<string, string>();
function quoteWord(value: string): string {
  let quoted = QUOTED.get(value);
  if (quoted === undefined) {
    quoted = JSON.stringify(value);
    if (QUOTED.size < 4096) QUOTED.set(value, quoted);
  }
  return quoted;
}

export interface Quoter {
  ref(id: number): string;
  text(value: string): string;
}

export function plainQuoter(refOf: RefOf): Quoter {
  return {
    ref: (id) => {
      const ref = refOf(id);
      return ref === undefined ? '' : quote(ref);
    },
    text: quote,
  };
}

function refsOf(ids: readonly number[], refOf: RefOf): string[] {
  const refs: string[] = [];
  for (const id of ids) {
    const ref = refOf(id);
    if (ref !== undefined) refs.push(ref);
  }
  return refs;
}

// Generated from the table once, at load, as code a hand would write: a loop over the table costs far more per
// item (docs/adr/0037). The table holds only constants, so nothing from a request reaches the generated code.
const read = (field: WireField): string => `item[${JSON.stringify(field.from)}]`;

function wireItemSource(fields: readonly WireField[]): string {
  const entries = fields.map((field) => {
    const value = read(field);
    const wire =
      field.kind === 'timestamp'
        ? `toZonelessIso(${value})`
        : field.kind === 'refs'
          ? `refsOf(${value}, refOf)`
          : field.kind === 'texts'
            ? `${value}.slice()`
            : value;
    return `    ${JSON.stringify(field.key)}: ${wire},`;
  });
  return `return {\n${entries.join('\n')}\n  };`;
}

// null when a value is not of its kind's type: what JSON.stringify would write otherwise is never hand-written.
function itemJsonSource(fields: readonly WireField[]): string {
  // every value is read and checked before a list is built (the quoter records the blockers it quotes)
  const lines: string[] = [];
  const lists: string[] = [];
  const parts: string[] = [];
  fields.forEach((field, f) => {
    const v = `v${f}`;
    const key = JSON.stringify(`${f === 0 ? '{' : ','}${JSON.stringify(field.key)}:`);
    switch (field.kind) {
      case 'text':
      case 'word':
      case 'timestamp':
        lines.push(`const ${v} = ${read(field)};`, `if (typeof ${v} !== 'string') return null;`);
        parts.push(
          key,
          field.kind === 'text'
            ? `quote(${v})`
            : field.kind === 'word'
              ? `quoteWord(${v})`
              : `quote(toZonelessIso(${v}))`,
        );
        break;
      case 'number':
        lines.push(`const ${v} = ${read(field)};`, `if (!Number.isFinite(${v})) return null;`);
        parts.push(key, `String(${v})`);
        break;
      case 'refs':
        lines.push(`const ${v} = ${read(field)};`);
        lists.push(
          `let l${f} = '[';`,
          `for (let k = 0; k < ${v}.length; k++) {`,
          `  const ref = quoter.ref(${v}[k]);`,
          `  if (ref !== '') l${f} += l${f}.length > 1 ? ',' + ref : ref;`,
          `}`,
        );
        parts.push(key, `l${f}`, `']'`);
        break;
      case 'texts':
        lines.push(`const ${v} = ${read(field)};`);
        lists.push(
          `let l${f} = '[';`,
          `for (let k = 0; k < ${v}.length; k++) l${f} += (k > 0 ? ',' : '') + quoter.text(${v}[k]);`,
        );
        parts.push(key, `l${f}`, `']'`);
        break;
    }
  });
  parts.push(`'}'`);
  return [...lines, ...lists, `return ${parts.join(' + ')};`].join('\n');
}

export const WIRE_ITEM_SOURCE = wireItemSource(FIELDS);
export const ITEM_JSON_SOURCE = itemJsonSource(FIELDS);

const compiledWireItem = new Function(
  'toZonelessIso',
  'refsOf',
  `return (item, refOf) => {\n  ${WIRE_ITEM_SOURCE}\n};`,
)(toZonelessIso, refsOf) as (item: FrontierItem, refOf: RefOf) => FrontierItemWire;

const compiledItemJson = new Function(
  'quote',
  'quoteWord',
  'toZonelessIso',
  `return (item, quoter) => {\n${ITEM_JSON_SOURCE}\n};`,
)(quote, quoteWord, toZonelessIso) as (item: FrontierItem, quoter: Quoter) => string | null;

// Unresolvable blockers are left out of blocked_by so internal ids never leak (their reason stays).
export function wireItem(item: FrontierItem, refOf: RefOf): FrontierItemWire {
  return compiledWireItem(item, refOf);
}

// Anything JSON.stringify would treat specially takes the generic path.
export function frontierItemJson(item: FrontierItem, refOf: RefOf, quoter: Quoter = plainQuoter(refOf)): string {
  const json = compiledItemJson(item, quoter);
  if (json !== null) return json;
  // the blockers are quoted all the same, so that a change of their refs is seen (FrontierSerializer's knownRefs)
  for (const id of item.blocked_by) quoter.ref(id);
  return JSON.stringify(wireItem(item, refOf));
}
