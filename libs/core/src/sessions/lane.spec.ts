import { matchesSelector, resolveLane } from './lane';

const claude = { harness: 'claude-code', model: 'claude-opus-4' };

describe('resolveLane', () => {
  it('should use the first matching lane rule when rules match', () => {
    const policy = {
      lane_rules: [
        { harness: 'codex', lane: 'codex-lane' },
        { harness: 'claude-code', model: 'claude-opus-*', lane: 'heavy' },
        { harness: 'claude-code', lane: 'light' },
      ],
      executor_default_lane_claude_code: 'never',
    };
    expect(resolveLane(claude, policy, null)).toEqual({
      lane: 'heavy',
      source: 'lane_rule',
      scope: 'project',
      key: 'lane_rules[1]',
    });
  });

  it('should require every field of a rule to match when both harness and model are set', () => {
    const policy = { lane_rules: [{ harness: 'claude-code', model: 'gpt-*', lane: 'x' }] };
    expect(resolveLane(claude, policy, null).lane).toBe('primary');
  });

  it('should match a model-only rule whatever the harness', () => {
    expect(resolveLane(claude, { lane_rules: [{ model: 'claude-opus-4', lane: 'm' }] }, null).lane).toBe('m');
  });

  it('should skip malformed rules when the stored policy is odd', () => {
    const policy = {
      lane_rules: [null, 'x', { harness: 'claude-code' }, { harness: 3, lane: 'bad' }, { lane: 'any' }],
    };
    expect(resolveLane(claude, policy, null)).toMatchObject({ lane: 'any', key: 'lane_rules[4]' });
  });

  it('should use the exact harness default lane when no rule matches', () => {
    const policy = {
      'executor_default_lane_claude-code': 'exact',
      'executor_default_lane_claude*': 'prefix',
    };
    expect(resolveLane(claude, policy, null)).toMatchObject({ lane: 'exact', source: 'harness_exact' });
  });

  it('should pick the longest wildcard prefix when no exact key exists', () => {
    const policy = {
      'executor_default_lane_c*': 'short',
      'executor_default_lane_claude*': 'long',
      'executor_default_lane_claude-x*': 'not-matching',
    };
    expect(resolveLane(claude, policy, null)).toMatchObject({
      lane: 'long',
      source: 'harness_prefix',
      key: 'executor_default_lane_claude*',
    });
  });

  it('should fall back to the unknown lane when no harness key matches', () => {
    const policy = { executor_default_lane_codex: 'codex', executor_default_lane_unknown: 'misc' };
    expect(resolveLane(claude, policy, null)).toMatchObject({ lane: 'misc', source: 'harness_unknown' });
  });

  it('should resolve a missing harness through the unknown token', () => {
    expect(resolveLane({ harness: null, model: null }, { executor_default_lane_unknown: 'u' }, null).lane).toBe('u');
  });

  it('should return primary when nothing in the policy decides', () => {
    expect(resolveLane(claude, {}, null)).toEqual({ lane: 'primary', source: 'default', scope: 'builtin', key: null });
  });

  it('should ignore the machine config when a project policy exists', () => {
    const machine = { executor_default_lane_unknown: 'machine' };
    expect(resolveLane(claude, {}, machine).lane).toBe('primary');
  });

  it('should use the machine config only when there is no project', () => {
    const machine = { lane_rules: [{ harness: 'claude*', lane: 'local' }] };
    expect(resolveLane(claude, null, machine)).toMatchObject({ lane: 'local', scope: 'machine' });
  });

  it('should return primary when neither project nor machine config exists', () => {
    expect(resolveLane(claude, null, null).lane).toBe('primary');
  });

  it('should compare harness case-insensitively and ignore blank lanes', () => {
    const policy = { lane_rules: [{ harness: 'claude-code', lane: '  ' }], 'executor_default_lane_claude-code': 'x' };
    expect(resolveLane({ harness: ' Claude-Code ', model: null }, policy, null).lane).toBe('x');
  });
});

describe('matchesSelector', () => {
  it('should match exactly or by trailing-star prefix', () => {
    expect(matchesSelector('gpt-4', 'gpt-4')).toBe(true);
    expect(matchesSelector('gpt-*', 'gpt-4o')).toBe(true);
    expect(matchesSelector('gpt-*', 'o1')).toBe(false);
    expect(matchesSelector('gpt-4', 'gpt-4o')).toBe(false);
  });

  it('should let a lone star match an absent value but nothing else do so', () => {
    expect(matchesSelector('*', null)).toBe(true);
    expect(matchesSelector('gpt*', null)).toBe(false);
  });
});
