import {
  approverShortfall,
  approverStanding,
  decideApproval,
  deploymentComplete,
  GatedStage,
  mayRetireEnvironment,
  runHalt,
  runPosition,
  skippedApproval,
  stageApprovalNeeds,
  strongestApproval,
} from './deployments';

const member = { organization: 'acme', role: 'member', status: 'active' };
const admin = { organization: 'acme', role: 'admin', status: 'active' };
const suspendedAdmin = { organization: 'acme', role: 'admin', status: 'suspended' };
const noOrganization = { organization: null, role: null, status: null };

const stage = (name: string, approval: 'member' | 'admin' | null = null, capabilities: string[] = []): GatedStage => ({
  name,
  approval: approval && { role: approval },
  capabilities,
});
const FLOW = [stage('build'), stage('staging', 'member'), stage('production', 'admin', ['kubectl'])];

describe('strongestApproval', () => {
  it('should answer null when no environment needs an approval', () => {
    expect(strongestApproval([])).toBeNull();
  });

  it('should answer the first admin need over member needs', () => {
    expect(
      strongestApproval([
        ['staging', 'member'],
        ['production', 'admin'],
        ['dr', 'admin'],
      ]),
    ).toEqual(['production', 'admin']);
  });
});

describe('approverStanding', () => {
  it.each([
    ['the server admin anywhere', true, member, 'admin'],
    ['anyone on a project of no organization', false, noOrganization, 'member'],
    ['an active organization admin', false, admin, 'admin'],
    ['an active member', false, member, 'member'],
    ['a suspended admin as no approver', false, suspendedAdmin, null],
  ] as const)('should rank %s', (_name, isServerAdmin, membership, role) => {
    expect(approverStanding(isServerAdmin, membership, undefined).role).toBe(role);
  });

  it('should carry the organization and whether the policy raises approvals to admin', () => {
    expect(approverStanding(false, member, 'admin')).toEqual({
      role: 'member',
      organization: 'acme',
      policyAdmin: true,
    });
    expect(approverStanding(false, member, 'member').policyAdmin).toBe(false);
  });
});

describe('approverShortfall', () => {
  it('should let anyone write where no approval is needed', () => {
    expect(approverShortfall({ role: null }, null)).toBeNull();
  });

  it('should let an equal or stronger approver write', () => {
    expect(approverShortfall({ role: 'member' }, ['staging', 'member'])).toBeNull();
    expect(approverShortfall({ role: 'admin' }, ['staging', 'member'])).toBeNull();
  });

  it('should name the environment and role a weaker caller lacks', () => {
    expect(approverShortfall({ role: 'member' }, ['production', 'admin'])).toEqual({
      environment: 'production',
      required: 'admin',
    });
    expect(approverShortfall({ role: null }, ['staging', 'member'])).toEqual({
      environment: 'staging',
      required: 'member',
    });
  });
});

describe('stageApprovalNeeds', () => {
  const stages = [
    { ...stage('build'), environment: null },
    { ...stage('canary', 'member'), environment: 'production' },
    { ...stage('staging', 'member'), environment: null },
  ];

  it("should list each approval stage's environment, else its name, with its role", () => {
    expect(stageApprovalNeeds(stages, false)).toEqual([
      ['production', 'member'],
      ['staging', 'member'],
    ]);
  });

  it('should raise every need to admin under an admin approval policy', () => {
    expect(stageApprovalNeeds(stages, true).map(([, role]) => role)).toEqual(['admin', 'admin']);
  });
});

describe('mayRetireEnvironment', () => {
  it.each([
    ['an unconfined server admin', true, member, true],
    ['an active organization admin', false, admin, true],
    ['a member', false, member, false],
    ['a suspended admin', false, suspendedAdmin, false],
    ['anyone on a project of no organization', false, { ...noOrganization, role: 'admin' }, false],
  ] as const)('should answer for %s', (_name, seesEveryProject, membership, allowed) => {
    expect(mayRetireEnvironment(seesEveryProject, membership)).toBe(allowed);
  });
});

describe('runPosition', () => {
  it('should keep the stage index when no stage is named', () => {
    expect(runPosition(FLOW, 2, undefined)).toBe(2);
  });

  it('should prefer a named stage, counted from 1', () => {
    expect(runPosition(FLOW, 1, 'production')).toBe(3);
  });

  it('should keep the index for a name the flow does not have', () => {
    expect(runPosition(FLOW, 2, 'elsewhere')).toBe(2);
  });
});

describe('skippedApproval', () => {
  const base = {
    stages: FLOW,
    status: 'running',
    position: 1,
    requiredApproval: null,
    approvedStages: new Set<number>(),
    approvedByAdmin: false,
  };

  it('should pass a run at or before its first approval stage', () => {
    expect(skippedApproval({ ...base, position: 2 })).toBeNull();
  });

  it('should name the first approval stage a run moved past unapproved', () => {
    expect(skippedApproval({ ...base, position: 3 })).toEqual({ stage: 'staging', stage_index: 2 });
  });

  it('should pass a run past an approved stage', () => {
    expect(skippedApproval({ ...base, position: 3, approvedStages: new Set([2]) })).toBeNull();
  });

  it('should hold a succeeded run to every approval stage of its flow', () => {
    expect(skippedApproval({ ...base, status: 'succeeded', approvedStages: new Set([2]) })).toEqual({
      stage: 'production',
      stage_index: 3,
    });
  });

  it('should not look at the stages of a failed run', () => {
    expect(skippedApproval({ ...base, status: 'failed', position: 4 })).toBeNull();
  });

  it('should refuse a succeeded run without the approval its environment needs', () => {
    const run = { ...base, stages: [], status: 'succeeded' };
    expect(skippedApproval({ ...run, requiredApproval: 'member' })).toEqual({ stage: null, stage_index: null });
    expect(skippedApproval({ ...run, requiredApproval: 'member', approvedStages: new Set([1]) })).toBeNull();
    expect(skippedApproval({ ...run, requiredApproval: 'admin', approvedStages: new Set([1]) })).toEqual({
      stage: null,
      stage_index: null,
    });
    expect(skippedApproval({ ...run, requiredApproval: 'admin', approvedByAdmin: true })).toBeNull();
  });
});

describe('runHalt', () => {
  const base = { stages: FLOW, status: 'running', position: 3, approvedStages: new Set<number>(), capabilities: [] };

  it('should halt at an unapproved approval stage, missing nothing else', () => {
    expect(runHalt(base)).toEqual({ kind: 'awaiting-approval', stage: FLOW[2], position: 3, missing: [] });
  });

  it('should halt at an approved stage whose capabilities the usher step lacks', () => {
    expect(runHalt({ ...base, approvedStages: new Set([3]) })).toEqual({
      kind: 'needs-capability',
      stage: FLOW[2],
      position: 3,
      missing: ['kubectl'],
    });
  });

  it('should go on once approved with every capability', () => {
    expect(runHalt({ ...base, approvedStages: new Set([3]), capabilities: ['kubectl', 'helm'] })).toBeNull();
  });

  it.each([
    ['a run that is not open', { status: 'succeeded' }],
    ['a run at no stage yet', { position: 0 }],
    ['a run past the last stage', { position: 4 }],
    ['a stage with no gate', { position: 1 }],
  ])('should not halt %s', (_name, change) => {
    expect(runHalt({ ...base, ...change })).toBeNull();
  });
});

describe('decideApproval', () => {
  const input = {
    isServerAdmin: false,
    membership: member,
    stageRole: 'member' as const,
    policyApprovalRole: undefined,
  };

  it('should let an active member approve a member stage', () => {
    expect(decideApproval(input)).toEqual({ allow: true, asAdmin: false });
  });

  it('should refuse an inactive member before anything else', () => {
    expect(decideApproval({ ...input, membership: suspendedAdmin, stageRole: 'admin' })).toEqual({
      allow: false,
      code: 'organization_membership_required',
    });
  });

  it('should refuse a member at an admin stage, or under an admin approval policy', () => {
    const refused = { allow: false, code: 'admin_approval_required' };
    expect(decideApproval({ ...input, stageRole: 'admin' })).toEqual(refused);
    expect(decideApproval({ ...input, policyApprovalRole: 'admin' })).toEqual(refused);
  });

  it('should not let the server admin approve an admin stage of an organization they are no admin of', () => {
    expect(decideApproval({ ...input, isServerAdmin: true, stageRole: 'admin' })).toMatchObject({ allow: false });
  });

  it('should let an organization admin approve as admin', () => {
    expect(decideApproval({ ...input, membership: admin, stageRole: 'admin' })).toEqual({ allow: true, asAdmin: true });
  });

  it('should let anyone approve a member stage of a project of no organization, and the server admin an admin one', () => {
    const none = { ...input, membership: noOrganization };
    expect(decideApproval(none)).toEqual({ allow: true, asAdmin: false });
    expect(decideApproval({ ...none, stageRole: 'admin' })).toMatchObject({ code: 'admin_approval_required' });
    expect(decideApproval({ ...none, stageRole: 'admin', isServerAdmin: true })).toEqual({
      allow: true,
      asAdmin: true,
    });
  });
});

describe('deploymentComplete', () => {
  it('should let a succeeded run complete, whatever its flow says', () => {
    expect(deploymentComplete('succeeded', true)).toBe(true);
  });

  it('should hold an unfinished run when its flow completes before done, and not otherwise', () => {
    expect(deploymentComplete('halted', true)).toBe(false);
    expect(deploymentComplete('halted', false)).toBe(true);
  });
});
