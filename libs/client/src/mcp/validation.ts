import Ajv, { ErrorObject, ValidateFunction } from 'ajv';

import type { JsonSchema } from '@app/contracts/mcp';

// Compiled once per process (the daemon's /mcp builds a server per connection). Problems are worded as clients of
// this server have always read them (`Required at title`), one line each.

const ajv = new Ajv({ allErrors: true, allowUnionTypes: true });
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

function validatorOf(schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

export interface ValidationOptions {
  unknownProperties?: (names: string[]) => string;
}

export function validationProblems(schema: JsonSchema, value: unknown, options: ValidationOptions = {}): string | null {
  const validate = validatorOf(schema);
  if (validate(value)) return null;
  return describeErrors(schema, validate.errors ?? [], value, options);
}

function describeErrors(
  schema: JsonSchema,
  errors: ErrorObject[],
  value: unknown,
  { unknownProperties }: ValidationOptions,
): string {
  const order = Object.keys((schema.properties as JsonSchema | undefined) ?? {});
  const lines: { at: number; text: string }[] = [];
  const unknownAtTop: string[] = [];
  for (const error of errors) {
    // a nullable value's failures: the inner schema's says what was wrong; "must be null" and "anyOf" add nothing
    if (error.keyword === 'anyOf') continue;
    if (error.keyword === 'type' && (error.params as { type?: unknown }).type === 'null') continue;
    const path = pathOf(error);
    if (error.keyword === 'additionalProperties' && path.length === 0 && unknownProperties) {
      unknownAtTop.push(String((error.params as { additionalProperty: string }).additionalProperty));
      continue;
    }
    const first = path.length > 0 ? order.indexOf(String(path[0])) : -1;
    lines.push({ at: first === -1 ? order.length : first, text: located(message(error, value), path) });
  }
  lines.sort((a, b) => a.at - b.at);
  const texts = lines.map((line) => line.text);
  if (unknownAtTop.length > 0 && unknownProperties) texts.push(unknownProperties(unknownAtTop));
  return texts.join('\n');
}

function pathOf(error: ErrorObject): (string | number)[] {
  const path: (string | number)[] = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^(0|[1-9][0-9]*)$/.test(segment) ? Number(segment) : segment));
  if (error.keyword === 'required') path.push((error.params as { missingProperty: string }).missingProperty);
  return path;
}

function located(text: string, path: (string | number)[]): string {
  if (path.length === 0) return text;
  const dotted = path.reduce<string>(
    (acc, segment, i) =>
      i === 0 ? String(segment) : typeof segment === 'number' ? `${acc}[${segment}]` : `${acc}.${segment}`,
    '',
  );
  return `${text} at ${dotted}`;
}

function valueAt(value: unknown, instancePath: string): unknown {
  let at = value;
  for (const segment of instancePath.split('/').slice(1)) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[segment.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return at;
}

function received(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'bigint' ? 'bigint' : typeof value;
}

function message(error: ErrorObject, value: unknown): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return 'Required';
    case 'type': {
      const expected = Array.isArray(params.type) ? params.type.join(' | ') : String(params.type);
      const actual = valueAt(value, error.instancePath);
      if (expected === 'integer' && typeof actual === 'number') return 'Expected integer, received float';
      return `Expected ${expected === 'integer' ? 'number' : expected}, received ${received(actual)}`;
    }
    case 'minLength':
      return `String must contain at least ${String(params.limit)} character(s)`;
    case 'maxLength':
      return `String must contain at most ${String(params.limit)} character(s)`;
    case 'minimum':
      return `Number must be greater than or equal to ${String(params.limit)}`;
    case 'maximum':
      return `Number must be less than or equal to ${String(params.limit)}`;
    case 'minItems':
      return `Array must contain at least ${String(params.limit)} element(s)`;
    case 'maxItems':
      return `Array must contain at most ${String(params.limit)} element(s)`;
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map((v) => (typeof v === 'string' ? `'${v}'` : String(v)));
      const actual = valueAt(value, error.instancePath);
      return `Invalid enum value. Expected ${allowed.join(' | ')}, received ${typeof actual === 'string' ? `'${actual}'` : JSON.stringify(actual)}`;
    }
    case 'const':
      return `Invalid literal value, expected ${JSON.stringify(params.allowedValue)}`;
    case 'additionalProperties':
      return `Unrecognized key(s) in object: '${String(params.additionalProperty)}'`;
    default:
      return error.message ?? `failed ${error.keyword}`;
  }
}
