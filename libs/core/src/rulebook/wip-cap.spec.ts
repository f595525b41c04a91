import {
  raisesWipCap,
  WIP_CAP_OVERRIDE_FORBIDDEN,
  WIP_CAP_POLICY_FORBIDDEN,
  wipCapOverride,
  wipCapPolicyChange,
} from './wip-cap';

describe('wipCapOverride', () => {
  it.each([
    // policy, asked, admin, answer
    [3, undefined, false, { cap: 3 }],
    [3, undefined, true, { cap: 3 }],
    [3, 1, false, { cap: 1 }],
    [3, 0, false, { cap: 0 }],
    [3, 3, false, { cap: 3 }],
    [3, 4, false, { refuse: WIP_CAP_OVERRIDE_FORBIDDEN }],
    [3, 1000, false, { refuse: WIP_CAP_OVERRIDE_FORBIDDEN }],
    [3, 1000, true, { cap: 1000 }],
    [0, 1, false, { refuse: WIP_CAP_OVERRIDE_FORBIDDEN }],
    [30, 7, true, { cap: 7 }],
  ])('should answer policy %s, asked %s, admin %s with %j', (policyCap, asked, isOrgAdmin, expected) => {
    expect(wipCapOverride({ policyCap, asked, isOrgAdmin })).toEqual(expected);
  });

  it('should need the caller’s standing only for a cap above the policy’s', () => {
    expect(raisesWipCap(3, undefined)).toBe(false);
    expect(raisesWipCap(3, 3)).toBe(false);
    expect(raisesWipCap(3, 2)).toBe(false);
    expect(raisesWipCap(3, 4)).toBe(true);
  });
});

describe('wipCapPolicyChange', () => {
  it.each([
    // stored, patch, admin, answer
    [undefined, undefined, false, { allow: true }],
    [3, undefined, false, { allow: true }],
    [3, 3, false, { allow: true }],
    [undefined, null, false, { allow: true }],
    [3, 4, false, { refuse: WIP_CAP_POLICY_FORBIDDEN }],
    [3, 2, false, { refuse: WIP_CAP_POLICY_FORBIDDEN }],
    [3, null, false, { refuse: WIP_CAP_POLICY_FORBIDDEN }],
    [undefined, 30, false, { refuse: WIP_CAP_POLICY_FORBIDDEN }],
    [3, 1000, true, { allow: true }],
    [3, null, true, { allow: true }],
    [undefined, 1, true, { allow: true }],
  ])('should answer stored %s, patch %s, admin %s with %j', (current, next, isOrgAdmin, expected) => {
    expect(wipCapPolicyChange({ current, next, isOrgAdmin })).toEqual(expected);
  });
});
