import {
  AuthorizationDecision,
  approverRefusal,
  approverStandingRefusal,
  authorizationDecision,
  bindsMachineAtPoll,
  capacityRefusal,
  decisionVerdict,
  lookupVerdict,
  lostConsumptionRefusal,
  machineManager,
  pollBudgetRefusal,
  pollVerdict,
  requestTargetGone,
} from './machine-authorization';

describe(authorizationDecision.name, () => {
  it.each([
    ['pending', true, 'pending'],
    ['pending', false, 'expired'],
    ['approved', true, 'approved'],
    ['approved', false, 'expired'],
    ['denied', true, 'denied'],
    ['denied', false, 'denied'],
    ['consumed', true, 'consumed'],
    ['consumed', false, 'consumed'],
  ] as const)('should read stored %s, live %s as %s', (status, live, expected) => {
    expect(authorizationDecision({ status, live })).toBe(expected);
  });
});

describe(bindsMachineAtPoll.name, () => {
  it.each([
    ['pending', '', true],
    ['approved', '', true],
    ['denied', '', false],
    ['consumed', '', false],
    ['pending', 'm-1', false],
  ] as const)('should bind a %s code with machine %j: %s', (status, machineId, expected) => {
    expect(bindsMachineAtPoll({ status, machineId })).toBe(expected);
  });
});

describe(pollBudgetRefusal.name, () => {
  it('should let a poll within the budget through', () => {
    expect(pollBudgetRefusal({ hits: 120, retryAfter: 7 }, 120)).toBeNull();
  });

  it('should throttle with the delay when the budget is exceeded', () => {
    expect(pollBudgetRefusal({ hits: 121, retryAfter: 7 }, 120)).toEqual({
      code: 'authorization_poll_rate_limited',
      message: 'too many polls from this address; retry in 7 s',
      retryAfter: 7,
    });
  });
});

describe(pollVerdict.name, () => {
  const code = (decision: AuthorizationDecision) => ({ decision, machineId: 'm-1' });

  it('should answer expired when the code is unknown', () => {
    expect(pollVerdict(null, 'm-1')).toEqual({
      refuse: { code: 'authorization_expired', message: 'this code is unknown or has expired; start a new connection' },
    });
  });

  it.each([
    ['consumed', 'authorization_consumed'],
    ['denied', 'authorization_denied'],
    ['expired', 'authorization_expired'],
  ] as const)('should answer a %s code with %s even to another machine', (decision, expected) => {
    expect(pollVerdict(code(decision), 'm-1')).toMatchObject({ refuse: { code: expected } });
    expect(pollVerdict(code(decision), 'm-2')).toMatchObject({ refuse: { code: expected } });
  });

  it.each(['pending', 'approved'] as const)('should refuse another machine polling a %s code', (decision) => {
    expect(pollVerdict(code(decision), 'm-2')).toMatchObject({ refuse: { code: 'machine_identity_mismatch' } });
  });

  it('should keep the starting machine waiting while the code is pending', () => {
    expect(pollVerdict(code('pending'), 'm-1')).toEqual({
      refuse: { code: 'authorization_pending', message: 'waiting for approval' },
    });
  });

  it('should consume an approved code for the starting machine', () => {
    expect(pollVerdict(code('approved'), 'm-1')).toEqual({ consume: true });
  });
});

describe(lostConsumptionRefusal.name, () => {
  it.each([
    [{ status: 'consumed', live: true } as const, 'authorization_consumed'],
    [{ status: 'approved', live: false } as const, 'authorization_expired'],
    [null, 'authorization_expired'],
  ])('should answer %j with %s', (now, expected) => {
    expect(lostConsumptionRefusal(now)).toMatchObject({ code: expected });
  });

  it('should ask for another poll when the code is still approved and live', () => {
    expect(lostConsumptionRefusal({ status: 'approved', live: true })).toBe('retry');
  });
});

describe(lookupVerdict.name, () => {
  it.each([
    [false, 'pending', false, 'unknown'],
    [false, 'approved', true, 'unknown'],
    [true, 'pending', false, 'show'],
    [true, 'expired', false, 'unknown'],
    [true, 'consumed', false, 'unknown'],
    [true, 'expired', true, 'show'],
    [true, 'consumed', true, 'show'],
    [true, 'approved', true, 'show'],
    [true, 'denied', true, 'show'],
  ] as const)('should answer visible %s, %s, decided by caller %s with %s', (visible, decision, mine, expected) => {
    expect(lookupVerdict({ visible, decision, decidedByCaller: mine })).toBe(expected);
  });

  it.each(['approved', 'denied'] as const)('should refuse a code another person %s as claimed', (decision) => {
    expect(lookupVerdict({ visible: true, decision, decidedByCaller: false })).toMatchObject({
      refuse: { code: 'authorization_claimed' },
    });
  });
});

describe(requestTargetGone.name, () => {
  it.each([
    [false, 'pending', false, true],
    [true, 'pending', false, false],
    [true, 'approved', false, false],
    [true, 'expired', false, true],
    [true, 'consumed', false, true],
    [true, 'expired', true, false],
    [true, 'consumed', true, false],
  ] as const)('should answer visible %s, %s, decided by caller %s: gone %s', (visible, decision, mine, expected) => {
    expect(requestTargetGone({ visible, decision, decidedByCaller: mine })).toBe(expected);
  });
});

describe(decisionVerdict.name, () => {
  const base = { decidedByCaller: false, wanted: 'approved', organizationId: 3 } as const;

  it('should record a pending code in its organization', () => {
    expect(decisionVerdict({ ...base, decision: 'pending' })).toEqual({ record: { organizationId: 3 } });
  });

  it('should ask for an organization when neither the code nor the approver names one', () => {
    expect(decisionVerdict({ ...base, decision: 'pending', organizationId: null })).toMatchObject({
      refuse: { code: 'invalid_request' },
    });
  });

  it.each([
    ['approved', 'approved'],
    ['denied', 'denied'],
  ] as const)('should repeat the answer when the same person %s it again', (decision, wanted) => {
    expect(decisionVerdict({ ...base, decision, wanted, decidedByCaller: true })).toEqual({ answer: decision });
  });

  it.each([
    ['approved', 'denied'],
    ['denied', 'approved'],
  ] as const)('should refuse a change of mind from %s to %s', (decision, wanted) => {
    expect(decisionVerdict({ ...base, decision, wanted, decidedByCaller: true })).toEqual({
      refuse: {
        code: 'authorization_already_decided',
        message: `you already ${decision} this code; a decision is final`,
      },
    });
  });

  it.each(['approved', 'denied'] as const)('should refuse a second approver of a code already %s', (decision) => {
    expect(decisionVerdict({ ...base, decision })).toMatchObject({ refuse: { code: 'authorization_claimed' } });
  });

  it.each(['expired', 'consumed'] as const)("should answer another person's %s code as unknown", (decision) => {
    expect(decisionVerdict({ ...base, decision })).toBe('unknown');
  });

  it.each([
    ['expired', 'authorization_expired'],
    ['consumed', 'authorization_consumed'],
  ] as const)('should tell the approver their own code is %s', (decision, expected) => {
    expect(decisionVerdict({ ...base, decision, decidedByCaller: true })).toMatchObject({ refuse: { code: expected } });
  });
});

describe(approverRefusal.name, () => {
  const org = { id: 1, slug: 'acme' };
  const active = { role: 'member', status: 'active' } as const;
  const activeAdmin = { role: 'admin', status: 'active' } as const;

  it.each([
    ['an active member', org, active, null, false],
    ['a confined request of the organization', org, active, 1, false],
    ['no organization', null, active, null, true],
    ['no membership', org, null, null, true],
    ['a disabled member', org, { role: 'admin', status: 'disabled' } as const, null, true],
    ['a request confined elsewhere', org, active, 2, true],
  ] as const)('should self-host answer %s', (_name, organization, membership, confinedTo, refused) => {
    const refusal = approverRefusal({ hosted: false, organization, membership, confinedTo });
    expect(refusal?.code ?? null).toBe(refused ? 'organization_membership_required' : null);
  });

  it.each([
    ['an active admin', activeAdmin, null, false],
    ['an active member who is no admin', active, null, true],
    ['a disabled admin', { role: 'admin', status: 'disabled' } as const, null, true],
    ['an admin confined elsewhere', activeAdmin, 2, true],
  ] as const)('should hosted answer %s', (_name, membership, confinedTo, refused) => {
    const refusal = approverRefusal({ hosted: true, organization: org, membership, confinedTo });
    expect(refusal).toEqual(
      refused
        ? {
            code: 'organization_membership_required',
            message: 'only active admins of acme decide its machine codes; ask one of its admins',
          }
        : null,
    );
  });
});

describe(approverStandingRefusal.name, () => {
  const standing = { slug: 'acme', actorStatus: 'active', membershipStatus: 'active', role: 'member' } as const;

  it('should issue while the self-host approver is an active member', () => {
    expect(approverStandingRefusal({ hosted: false, ...standing })).toBeNull();
  });

  it.each([
    [{ actorStatus: null }, 'organization_membership_required'],
    [{ actorStatus: 'disabled' }, 'actor_disabled'],
    [{ membershipStatus: 'disabled' }, 'organization_membership_required'],
    [{ membershipStatus: null }, 'organization_membership_required'],
  ] as const)('should self-host refuse an approver now %j with %s', (change, expected) => {
    expect(approverStandingRefusal({ hosted: false, ...standing, ...change })).toMatchObject({ code: expected });
  });

  it('should hosted refuse an approver who is no longer admin as machine_credential_refused', () => {
    expect(approverStandingRefusal({ hosted: true, ...standing })).toEqual({
      code: 'machine_credential_refused',
      message:
        'the approver is not an active admin of acme; ask an organization admin to restore it, or start a new connection',
    });
  });

  it('should hosted refuse a disabled approver as machine_credential_refused', () => {
    expect(
      approverStandingRefusal({ hosted: true, ...standing, role: 'admin', actorStatus: 'disabled' }),
    ).toMatchObject({ code: 'machine_credential_refused' });
  });
});

describe(capacityRefusal.name, () => {
  const limits = { client: 8, network: 32, wideNetwork: 48 };
  const keys = { networkKey: '10.0.0.0/24', wideNetworkKey: '10.0.0.0/16' };
  const open = { clientOpen: 0, networkOpen: 0, wideNetworkOpen: 0 };

  it.each([
    [{ clientOpen: 8 }, 'authorization_client_capacity', 'this address already has 8 codes'],
    [{ networkOpen: 32 }, 'authorization_client_capacity', '(10.0.0.0/24) already has 32 codes'],
    [{ wideNetworkOpen: 48 }, 'authorization_client_capacity', '(10.0.0.0/16) already has 48 codes'],
    [{}, 'authorization_capacity', 'the server has too many codes waiting'],
  ])('should name the full pool of %j', (full, code, text) => {
    const refusal = capacityRefusal({ ...open, ...full }, keys, limits);
    expect(refusal.code).toBe(code);
    expect(refusal.message).toContain(text);
  });

  it("should name the client's pool first when several are full", () => {
    expect(capacityRefusal({ clientOpen: 9, networkOpen: 40, wideNetworkOpen: 50 }, keys, limits).message).toContain(
      'this address',
    );
  });
});

describe(machineManager.name, () => {
  it.each([
    [{ isAdmin: false, isServerAdmin: false, organizationScope: null }, false, null, false],
    [{ isAdmin: true, isServerAdmin: true, organizationScope: null }, true, null, false],
    [{ isAdmin: true, isServerAdmin: false, organizationScope: 4 }, false, 4, true],
    [{ isAdmin: false, isServerAdmin: false, organizationScope: 4 }, false, 4, false],
  ])('should manage as %j', (actor, serverAdmin, scope, scopeAdmin) => {
    expect(machineManager({ actorId: 9, ...actor })).toEqual({ actorId: 9, serverAdmin, scope, scopeAdmin });
  });
});
