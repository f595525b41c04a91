import { DomainError } from './domain-error';
import { checkRequestPart, int4Problem, MAX_BODY_DEPTH } from './input-limits';

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

  it('should name a bad path or query value by its own name', () => {
    const err = refusal(() => checkRequestPart({ ref: 'A\u0000' }, 'path'));
    expect(err.extra.fields).toEqual([{ field: 'ref', problems: [expect.any(String)] }]);
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
