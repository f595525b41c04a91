import { invalidRequest, validationFailed } from './domain-error';
import { controlCharacterProblem } from './text-fields';

// The deepest JSON a request may nest. The deepest wire shape (a backlog import: items > sections > …) stays under
// ten levels; 32 leaves room and keeps every recursive walker (class-transformer, class-validator) far from the
// stack's end.
export const MAX_BODY_DEPTH = 32;

// PostgreSQL's integer column (int4): every integer in a path or query addresses one.
export const INT4_MIN = -2_147_483_648;
export const INT4_MAX = 2_147_483_647;

// Stop naming fields after this many: the answer stays small whatever the body.
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

// A field's name as the answer shows it; a key that is itself unstorable is shown escaped.
function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  const shown = unstorableText(key) || controlCharacterProblem(key, false) ? JSON.stringify(key).slice(1, -1) : key;
  return parent ? `${parent}.${shown}` : shown;
}

export const tooDeep = (where: string) => invalidRequest(`${where} nests deeper than ${MAX_BODY_DEPTH} levels`);

export const unstorable = (fields: FieldProblem[]) => validationFailed(fields);

// A string's problem: unstorable first (NUL, lone surrogates), then control characters for its kind of field.
function textProblem(value: string, multiLine: boolean): string | null {
  return unstorableText(value) ?? controlCharacterProblem(value, multiLine);
}

// Walks a parsed request part without recursion (a hostile body cannot exhaust the stack here): refuses nesting
// past MAX_BODY_DEPTH (invalid_request) and every string or key PostgreSQL cannot store or a terminal would obey
// (validation_failed, naming each field). A string is single-line unless its JSON path (`[]` for any index) is in
// `multiLine` (text-fields.ts); keys are always single-line. `prefix` names the part's fields: '' for the body.
export function checkRequestPart(
  value: unknown,
  where: string,
  prefix = '',
  multiLine: ReadonlySet<string> = new Set(),
): void {
  const problems: FieldProblem[] = [];
  const stack: { value: unknown; path: string; pattern: string; depth: number }[] = [
    { value, path: prefix, pattern: prefix, depth: 0 },
  ];
  while (stack.length > 0) {
    const { value: current, path, pattern, depth } = stack.pop()!;
    if (typeof current === 'string') {
      const problem = textProblem(current, multiLine.has(pattern));
      if (problem && problems.length < MAX_REPORTED_FIELDS)
        problems.push({ field: path || where, problems: [problem] });
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth >= MAX_BODY_DEPTH) throw tooDeep(where);
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) {
        stack.push({ value: current[i], path: childPath(path, i), pattern: `${pattern}[]`, depth: depth + 1 });
      }
      continue;
    }
    const keys = Object.keys(current);
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

// A decimal integer string within int4, or a problem naming why not; null when the value is fine.
export function int4Problem(value: string): string | null {
  if (!/^-?[0-9]+$/.test(value)) return null;
  const n = Number(value);
  return n < INT4_MIN || n > INT4_MAX ? `must be an integer from ${INT4_MIN} to ${INT4_MAX}` : null;
}
