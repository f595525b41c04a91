import { mergePolicy, titleMaxLength, validatePolicyPatch } from './project-policy';

describe('project policy', () => {
  describe(validatePolicyPatch.name, () => {
    it('should accept every documented key', () => {
      expect(
        validatePolicyPatch({
          wip_cap: 5,
          title_max_length: 80,
          lane_rules: [{ harness: 'claude-code', model: 'opus*', lane: 'deep' }],
          executor_default_lane_codex: 'fast',
          'executor_default_lane_claude*': 'primary',
          executor_default_lane_unknown: 'slow',
        }),
      ).toEqual([]);
    });

    it('should refuse unknown keys and bad values, naming each field', () => {
      const problems = validatePolicyPatch({ wip: 1, wip_cap: 0, lane_rules: [{ lane: 'x', colour: 'red' }] });
      expect(problems.map((p) => p.field).sort()).toEqual([
        'policy.lane_rules[0].colour',
        'policy.wip',
        'policy.wip_cap',
      ]);
    });

    // issue 36: documented in docs/api-backlog.md, refused as unknown before
    it('should accept deployment_approval_role as documented (member or admin) and refuse other values', () => {
      expect(validatePolicyPatch({ deployment_approval_role: 'admin' })).toEqual([]);
      expect(validatePolicyPatch({ deployment_approval_role: 'member' })).toEqual([]);
      expect(validatePolicyPatch({ deployment_approval_role: null })).toEqual([]);
      for (const bad of ['owner', 'ADMIN', 1, true, ['admin']]) {
        expect(validatePolicyPatch({ deployment_approval_role: bad })).toEqual([
          { field: 'policy.deployment_approval_role', problems: ['must be one of member, admin'] },
        ]);
      }
    });

    it('should accept null to remove a key', () => {
      expect(validatePolicyPatch({ wip_cap: null })).toEqual([]);
    });
  });

  it('should merge a patch and drop null keys', () => {
    expect(mergePolicy({ wip_cap: 3, title_max_length: 9 }, { wip_cap: null, title_max_length: 10 })).toEqual({
      title_max_length: 10,
    });
  });

  it('should default the title cap to 200', () => {
    expect(titleMaxLength({})).toBe(200);
    expect(titleMaxLength({ title_max_length: 12 })).toBe(12);
  });
});
