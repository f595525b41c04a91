import { DomainError } from './domain-error';
import {
  checkRequestPart,
  int4Problem,
  jsonShapeProblem,
  MAX_ARRAY_LENGTH,
  MAX_BODY_DEPTH,
  MAX_OBJECT_KEYS,
} from './input-limits';

function refusal(run: () => void): DomainError {
  try {
    run();
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

const nest = (depth: number): unknown => (depth === 0 ? 1 : { a: nest(depth - 1) });

describe(checkRequestPart.name, () => {
  it('should accept ordinary text, nesting up to the limit and non-string values', () => {
    expect(() => checkRequestPart({ title: 'héllo 💥', n: 1, ok: [true, null] }, 'request body')).not.toThrow();
    expect(() => checkRequestPart(nest(MAX_BODY_DEPTH), 'request body')).not.toThrow();
  });

  it('should name every field holding NUL or a lone surrogate', () => {
    const err = refusal(() =>
      checkRequestPart({ title: 'a\u0000', sections: [{ content: 'ok' }, { content: '\ud800' }] }, 'request body'),
    );
    expect(err.code).toBe('validation_failed');
    expect((err.extra.fields as { field: string }[]).map((f) => f.field).sort()).toEqual([
      'sections[1].content',
      'title',
    ]);
  });

  it('should refuse a key holding NUL, showing it escaped', () => {
    const err = refusal(() => checkRequestPart({ 'k\u0000': 1 }, 'request body'));
    expect(err.extra.fields).toEqual([{ field: 'k\\u0000', problems: [expect.stringMatching(/^name must not/)] }]);
  });

  it('should refuse nesting past the limit with invalid_request, without recursion', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const err = refusal(() => checkRequestPart(deep, 'request body'));
    expect(err.code).toBe('invalid_request');
    expect(err.status).toBe(400);
    expect(refusal(() => checkRequestPart(nest(MAX_BODY_DEPTH + 1), 'request body')).code).toBe('invalid_request');
  });

  it('should refuse an object past the key limit and an array past the length limit with 413', () => {
    const wide = Object.fromEntries(Array.from({ length: MAX_OBJECT_KEYS + 1 }, (_, i) => [`k${i}`, 1]));
    const keys = refusal(() => checkRequestPart({ posture: wide }, 'request body'));
    expect([keys.status, keys.code]).toEqual([413, 'payload_too_large']);
    expect(keys.message).toMatch(/field posture has more than 1000 keys/);
    const long = refusal(() => checkRequestPart({ items: new Array(MAX_ARRAY_LENGTH + 1).fill(0) }, 'request body'));
    expect([long.status, long.code]).toEqual([413, 'payload_too_large']);
    expect(long.message).toMatch(/field items has more than 100000 elements/);
  });

  it('should name a bad path or query value by its own name', () => {
    const err = refusal(() => checkRequestPart({ ref: 'A\u0000' }, 'path'));
    expect(err.extra.fields).toEqual([{ field: 'ref', problems: [expect.any(String)] }]);
  });
});

describe(jsonShapeProblem.name, () => {
  const object = (n: number, prefix = 'k') => `{${Array.from({ length: n }, (_, i) => `"${prefix}${i}":1`).join(',')}}`;
  const array = (n: number) => `[${new Array(n).fill('0').join(',')}]`;
  const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

  it('should pass what stays within every limit, as JSON.parse would see it', () => {
    expect(jsonShapeProblem(object(MAX_OBJECT_KEYS))).toBeNull();
    expect(jsonShapeProblem(`{"items":${array(MAX_ARRAY_LENGTH)}}`)).toBeNull();
    expect(jsonShapeProblem(nested(MAX_BODY_DEPTH))).toBeNull();
    expect(jsonShapeProblem('[]')).toBeNull();
    expect(jsonShapeProblem('{}')).toBeNull();
    // brackets, colons, commas and escaped quotes inside strings are text, not structure
    const text = JSON.stringify({ a: '{{[[:,:,"\\', b: ['"]', '\\"'], c: ':'.repeat(5000) });
    expect(jsonShapeProblem(text)).toBeNull();
    expect(jsonShapeProblem(JSON.stringify({ list: [','.repeat(MAX_ARRAY_LENGTH + 5)] }))).toBeNull();
  });

  it('should refuse an object with too many keys, naming where, before anything is parsed', () => {
    const err = jsonShapeProblem(`{"a":[1,{"b":${object(MAX_OBJECT_KEYS + 1)}}]}`)!;
    expect([err.status, err.code]).toEqual([413, 'payload_too_large']);
    expect(err.message).toBe('request body field a[1].b has more than 1000 keys (the limit for one object)');
    expect(jsonShapeProblem(object(60_000))!.message).toBe(
      'request body has more than 1000 keys (the limit for one object)',
    );
  });

  it('should refuse a long array and deep nesting', () => {
    const long = jsonShapeProblem(`{"items":${array(MAX_ARRAY_LENGTH + 1)}}`)!;
    expect([long.status, long.code]).toEqual([413, 'payload_too_large']);
    expect(long.message).toMatch(/^request body field items has more than 100000 elements/);
    const deep = jsonShapeProblem(nested(MAX_BODY_DEPTH + 1))!;
    expect([deep.status, deep.code, deep.message]).toEqual([
      400,
      'invalid_request',
      'request body nests deeper than 32 levels',
    ]);
    expect(jsonShapeProblem('['.repeat(200_000))!.code).toBe('invalid_request');
  });

  it('should leave malformed text to JSON.parse', () => {
    expect(jsonShapeProblem('{"a":"unterminated')).toBeNull();
    expect(jsonShapeProblem(']]]{')).toBeNull();
  });
});

describe(int4Problem.name, () => {
  it('should accept the integer range and ignore what is not an integer', () => {
    expect(int4Problem('2147483647')).toBeNull();
    expect(int4Problem('-2147483648')).toBeNull();
    expect(int4Problem('abc')).toBeNull();
  });

  it('should refuse integers past it', () => {
    expect(int4Problem('2147483648')).toMatch(/from -2147483648 to 2147483647/);
    expect(int4Problem('-99999999999999999999')).not.toBeNull();
  });
});
