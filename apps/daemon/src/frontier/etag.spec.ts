import { etagMatches } from './frontier.controller';
import { bodyBytes, etagOf } from './wire/frontier-serializer';
import { serializeFrontier } from './read-path/frontier.service';

describe('frontier ETag', () => {
  it('should be a strong tag of the exact body, the same for the same bytes', () => {
    const a = serializeFrontier({ runnable: [1, 2] });
    expect(bodyBytes(a).toString('utf8')).toBe('{"runnable":[1,2]}');
    expect(a.etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(serializeFrontier({ runnable: [1, 2] }).etag).toBe(a.etag);
    expect(serializeFrontier({ runnable: [2, 1] }).etag).not.toBe(a.etag);
  });

  it('should not depend on how the body is cut into chunks', () => {
    const whole = Buffer.from('{"runnable":[1,2]}');
    expect(etagOf([whole.subarray(0, 5), whole.subarray(5, 6), whole.subarray(6)])).toBe(etagOf([whole]));
  });

  it.each([
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    [' "x" ,W/"abc" ', true],
    ['*', true],
    ['"abcd"', false],
    ['abc', false],
    ['', false],
  ])('should match If-None-Match %j: %s', (header, expected) => {
    expect(etagMatches(header, '"abc"')).toBe(expected);
  });
});
