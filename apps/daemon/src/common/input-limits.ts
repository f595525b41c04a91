import { DomainError, invalidRequest, payloadTooLarge, validationFailed } from './domain-error';
import { controlCharacterProblem, MultiLineFields } from './text-fields';

// The deepest wire shape stays under ten levels; 32 keeps recursive walkers far from the stack's end.
export const MAX_BODY_DEPTH = 32;

// Checked before anything walks the value: class-transformer's key dedupe is quadratic in one object's keys.
export const MAX_OBJECT_KEYS = 1000;
export const MAX_ARRAY_LENGTH = 100_000;

// PostgreSQL's integer column (int4): every integer in a path or query addresses one.
export const INT4_MIN = -2_147_483_648;
export const INT4_MAX = 2_147_483_647;

const MAX_REPORTED_FIELDS = 20;

export interface FieldProblem {
  field: string;
  problems: string[];
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// Text PostgreSQL cannot store: NUL (text and jsonb refuse it) and lone UTF-16 surrogates (jsonb refuses their
// escapes; text would silently turn them into U+FFFD).
export function unstorableText(value: string): string | null {
  if (value.includes('\u0000')) return 'must not contain the NUL character (\\u0000)';
  if (LONE_SURROGATE.test(value)) return 'must be valid Unicode text (it contains a lone surrogate)';
  return null;
}

function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  const shown = unstorableText(key) || controlCharacterProblem(key, false) ? JSON.stringify(key).slice(1, -1) : key;
  return parent ? `${parent}.${shown}` : shown;
}

export const tooDeep = (where: string) => invalidRequest(`${where} nests deeper than ${MAX_BODY_DEPTH} levels`);

const at = (where: string, field: string) => (field ? `${where} field ${field}` : where);

export const tooManyKeys = (where: string, field: string) =>
  payloadTooLarge(`${at(where, field)} has more than ${MAX_OBJECT_KEYS} keys (the limit for one object)`);

export const tooManyElements = (where: string, field: string) =>
  payloadTooLarge(`${at(where, field)} has more than ${MAX_ARRAY_LENGTH} elements (the limit for one array)`);

export const unstorable = (fields: FieldProblem[]) => validationFailed(fields);

function textProblem(value: string, multiLine: boolean): string | null {
  return unstorableText(value) ?? controlCharacterProblem(value, multiLine);
}

// Iterative, so a hostile body cannot exhaust the stack. A string is single-line unless its JSON path (`[]` for any
// index) is in `multiLine` (text-fields.ts); keys are always single-line.
export function checkRequestPart(
  value: unknown,
  where: string,
  prefix = '',
  multiLine: MultiLineFields = new Set(),
): void {
  const problems: FieldProblem[] = [];
  const stack: { value: unknown; path: string; pattern: string; depth: number }[] = [
    { value, path: prefix, pattern: prefix, depth: 0 },
  ];
  while (stack.length > 0) {
    const { value: current, path, pattern, depth } = stack.pop()!;
    if (typeof current === 'string') {
      const problem = textProblem(current, multiLine === 'every' || multiLine.has(pattern));
      if (problem && problems.length < MAX_REPORTED_FIELDS)
        problems.push({ field: path || where, problems: [problem] });
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth >= MAX_BODY_DEPTH) throw tooDeep(where);
    if (Array.isArray(current)) {
      if (current.length > MAX_ARRAY_LENGTH) throw tooManyElements(where, path);
      for (let i = current.length - 1; i >= 0; i--) {
        stack.push({ value: current[i], path: childPath(path, i), pattern: `${pattern}[]`, depth: depth + 1 });
      }
      continue;
    }
    const keys = Object.keys(current);
    if (keys.length > MAX_OBJECT_KEYS) throw tooManyKeys(where, path);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i];
      const keyProblem = textProblem(key, false);
      if (keyProblem && problems.length < MAX_REPORTED_FIELDS) {
        problems.push({ field: childPath(path, key), problems: [`name ${keyProblem}`] });
      }
      stack.push({
        value: (current as Record<string, unknown>)[key],
        path: childPath(path, key),
        pattern: pattern ? `${pattern}.${key}` : key,
        depth: depth + 1,
      });
    }
  }
  if (problems.length > 0) throw unstorable(problems);
}

export function int4Problem(value: string): string | null {
  if (!/^-?[0-9]+$/.test(value)) return null;
  const n = Number(value);
  return n < INT4_MIN || n > INT4_MAX ? `must be an integer from ${INT4_MIN} to ${INT4_MAX}` : null;
}

const OBJECT = 1;
const ARRAY = 2;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

// Read off the raw text before JSON.parse builds anything: a refusal costs a scan, not a parse and a validation.
// Strings are skipped whole, so brackets inside them do not count; syntax is left to JSON.parse.
export function jsonShapeProblem(text: string, where = 'request body'): DomainError | null {
  const kinds: number[] = [];
  const counts: number[] = [];
  const keyStart: number[] = [];
  const keyEnd: number[] = [];
  let depth = 0;
  let expectKey = false;
  const fieldAt = (levels: number) => {
    let field = '';
    for (let d = 0; d < levels; d++) {
      if (kinds[d] === ARRAY) field += `[${Math.max(counts[d] - 1, 0)}]`;
      else if (keyStart[d] >= 0) {
        const key = JSON.stringify(text.slice(keyStart[d], Math.min(keyEnd[d], keyStart[d] + 64))).slice(1, -1);
        field += field ? `.${key}` : key;
      }
    }
    return field;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c <= 0x20) continue;
    const top = depth - 1;
    if (top >= 0 && kinds[top] === ARRAY && counts[top] === 0 && c !== 0x5d) counts[top] = 1;
    switch (c) {
      case QUOTE: {
        let end = i;
        for (;;) {
          end = text.indexOf('"', end + 1);
          if (end < 0) return null;
          let slashes = 0;
          while (text.charCodeAt(end - 1 - slashes) === BACKSLASH) slashes++;
          if (slashes % 2 === 0) break;
        }
        if (expectKey && top >= 0) {
          keyStart[top] = i + 1;
          keyEnd[top] = end;
          expectKey = false;
        }
        i = end;
        break;
      }
      case 0x7b: // {
      case 0x5b: // [
        if (depth >= MAX_BODY_DEPTH) return tooDeep(where);
        kinds[depth] = c === 0x7b ? OBJECT : ARRAY;
        counts[depth] = 0;
        keyStart[depth] = -1;
        depth++;
        expectKey = c === 0x7b;
        break;
      case 0x7d: // }
      case 0x5d: // ]
        if (depth === 0) return null;
        depth--;
        expectKey = false;
        break;
      case 0x3a: // :
        if (top >= 0 && kinds[top] === OBJECT && ++counts[top] > MAX_OBJECT_KEYS)
          return tooManyKeys(where, fieldAt(top));
        break;
      case 0x2c: // ,
        if (top < 0) break;
        if (kinds[top] === OBJECT) expectKey = true;
        else if (++counts[top] > MAX_ARRAY_LENGTH) return tooManyElements(where, fieldAt(top));
        break;
      default:
        break;
    }
  }
  return null;
}
