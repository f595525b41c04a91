import { ClaimHolder, decideClaim, isHolder } from './claims';

const holder: ClaimHolder = {
  sessionId: 7,
  actorId: 3,
  actor: 'ann',
  harness: 'claude-code',
  expiresAt: new Date('2026-11-28T12:00:00Z'),
};

describe('decideClaim', () => {
  it('should allow any write when nobody holds the item', () => {
    expect(
      decideClaim({
        kind: 'status',
        writer: { actorId: 9, sessionId: 1 },
        holder: null,
        force: false,
        isProjectAdmin: false,
      }),
    ).toEqual({ allow: true, forced: false, releasesClaim: false, notifiesHolder: false });
  });

  it('should allow the holding session', () => {
    const decision = decideClaim({
      kind: 'edit',
      writer: { actorId: 3, sessionId: 7 },
      holder,
      force: false,
      isProjectAdmin: false,
    });
    expect(decision.allow).toBe(true);
  });

  it('should count the same actor outside any session as the holder', () => {
    expect(isHolder({ actorId: 3, sessionId: null }, holder)).toBe(true);
  });

  it('should refuse another session of the same actor', () => {
    const decision = decideClaim({
      kind: 'status',
      writer: { actorId: 3, sessionId: 8 },
      holder,
      force: false,
      isProjectAdmin: false,
    });
    expect(decision).toEqual({ allow: false, code: 'item_claimed_elsewhere', holder });
  });

  it('should refuse another actor doing the work', () => {
    for (const kind of ['status', 'edit', 'resolve', 'db_claim'] as const) {
      const decision = decideClaim({
        kind,
        writer: { actorId: 4, sessionId: null },
        holder,
        force: false,
        isProjectAdmin: false,
      });
      expect(decision.allow).toBe(false);
    }
  });

  it('should let triage through and tell the holder', () => {
    expect(
      decideClaim({
        kind: 'triage',
        writer: { actorId: 4, sessionId: 2 },
        holder,
        force: false,
        isProjectAdmin: false,
      }),
    ).toEqual({ allow: true, forced: false, releasesClaim: false, notifiesHolder: true });
  });

  it('should let a project admin force the work, releasing the claim', () => {
    expect(
      decideClaim({
        kind: 'status',
        writer: { actorId: 1, sessionId: null },
        holder,
        force: true,
        isProjectAdmin: true,
      }),
    ).toEqual({ allow: true, forced: true, releasesClaim: true, notifiesHolder: true });
  });

  it('should refuse force from someone who is not a project admin', () => {
    const decision = decideClaim({
      kind: 'status',
      writer: { actorId: 4, sessionId: null },
      holder,
      force: true,
      isProjectAdmin: false,
    });
    expect(decision).toEqual({ allow: false, code: 'force_not_allowed', holder });
  });
});
