import { describe as described, integer, nullable, object, oneOf, optional, record, string } from '@app/contracts/mcp';

import { validationProblems } from './validation';

describe('validationProblems', () => {
  const schema = object({
    item: described(string({ minLength: 1, maxLength: 40 }), 'a ref'),
    limit: optional(integer({ minimum: 1, maximum: 100 })),
    bucket: optional(oneOf(['runnable', 'blocked'])),
    sections: optional(record(nullable(string({ maxLength: 5 })))),
  }).json;
  const unknownProperties = (names: string[]) => `unknown ${names.join(', ')}`;

  it('should accept what the schema accepts', () => {
    expect(validationProblems(schema, { item: 'ATL-1', limit: 3, sections: { a: null, b: 'x' } })).toBeNull();
  });

  it.each([
    [{}, 'Required at item'],
    [{ item: '' }, 'String must contain at least 1 character(s) at item'],
    [{ item: 5 }, 'Expected string, received number at item'],
    [{ item: 'A-1', limit: 1.5 }, 'Expected integer, received float at limit'],
    [{ item: 'A-1', limit: '3' }, 'Expected number, received string at limit'],
    [{ item: 'A-1', limit: 101 }, 'Number must be less than or equal to 100 at limit'],
    [{ item: 'A-1', bucket: 'x' }, "Invalid enum value. Expected 'runnable' | 'blocked', received 'x' at bucket"],
    [{ item: 'A-1', sections: { a: 5 } }, 'Expected string, received number at sections.a'],
    [{ item: 'A-1', sections: { a: 'toolong' } }, 'String must contain at most 5 character(s) at sections.a'],
  ])('should word the problem of %j as %p', (value, problem) => {
    expect(validationProblems(schema, value, { unknownProperties })).toBe(problem);
  });

  it('should list each problem in the order of the properties, the unknown ones last and together', () => {
    expect(validationProblems(schema, { x: 1, limit: 0, y: 2, item: 7 }, { unknownProperties })).toBe(
      [
        'Expected string, received number at item',
        'Number must be greater than or equal to 1 at limit',
        'unknown x, y',
      ].join('\n'),
    );
  });
});
