import { FRONTIER_PARAM_PATTERN, followsFrontier, frontierProjectsOf } from './stream-follow';

describe('the frontier notices a stream follows', () => {
  const follows = (query: { project?: string; frontier?: string }, visible: string[] | null, project: string) =>
    followsFrontier(frontierProjectsOf(query), visible && new Set(visible), project);

  it('should follow exactly the visible projects `frontier` names', () => {
    expect(follows({ frontier: 'a,b' }, ['a', 'b', 'c'], 'a')).toBe(true);
    expect(follows({ frontier: 'a,b' }, ['a', 'b', 'c'], 'b')).toBe(true);
    expect(follows({ frontier: 'a,b' }, ['a', 'b', 'c'], 'c')).toBe(false);
    // named but not visible (now): not followed
    expect(follows({ frontier: 'a,b' }, ['a'], 'b')).toBe(false);
    // an administrator sees every project, and still follows only those named
    expect(follows({ frontier: 'a' }, null, 'a')).toBe(true);
    expect(follows({ frontier: 'a' }, null, 'b')).toBe(false);
  });

  it('should follow nothing on a stream with neither `frontier` nor `project`, even an administrator’s', () => {
    expect(follows({}, null, 'a')).toBe(false);
    expect(follows({}, ['a'], 'a')).toBe(false);
  });

  it('should follow the `project` filter without `frontier`, and nothing outside it with one', () => {
    expect(follows({ project: 'a' }, null, 'a')).toBe(true);
    expect(follows({ project: 'a' }, ['b'], 'a')).toBe(false);
    expect(follows({ project: 'a', frontier: 'a,b' }, null, 'a')).toBe(true);
    // the stream receives none of b's notices: following b would compute it for nobody
    expect(follows({ project: 'a', frontier: 'a,b' }, null, 'b')).toBe(false);
    // an empty list asks for none
    expect(follows({ project: 'a', frontier: '' }, null, 'a')).toBe(false);
  });

  it('should accept up to eight project ids and refuse anything else', () => {
    expect(FRONTIER_PARAM_PATTERN.test('a')).toBe(true);
    expect(FRONTIER_PARAM_PATTERN.test('')).toBe(true);
    expect(FRONTIER_PARAM_PATTERN.test('p1,p2,p3,p4,p5,p6,p7,p8')).toBe(true);
    expect(FRONTIER_PARAM_PATTERN.test('p1,p2,p3,p4,p5,p6,p7,p8,p9')).toBe(false);
    expect(FRONTIER_PARAM_PATTERN.test(`a${'b'.repeat(62)}`)).toBe(true);
    for (const bad of ['A', 'a,', ',a', 'a,,b', 'a b', '-a', 'a;b', `a${'b'.repeat(63)}`]) {
      expect(FRONTIER_PARAM_PATTERN.test(bad)).toBe(false);
    }
  });
});
