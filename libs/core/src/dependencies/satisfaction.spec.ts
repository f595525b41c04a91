import {
  BLOCKER_MISSING_REASON,
  BlockerFacts,
  DEPENDENCY_SOURCES,
  GATE_POINTS,
  TERMINAL_STATUSES,
  blockingAbandoned,
  blockingTerminal,
  evaluateSatisfaction,
  formatSatisfaction,
  isSatisfied,
  parseSatisfaction,
} from './satisfaction';

const facts = (overrides: Partial<BlockerFacts> = {}): BlockerFacts => ({
  status: 'planned',
  mergedAt: null,
  deployedEnvironments: new Set(),
  registeredEnvironments: new Set(),
  ref: 'PRJ-3',
  ...overrides,
});

const STAGES = ['idea', 'refined-idea', 'planned', 'implementing', 'implemented', 'release', 'done'];

describe('parseSatisfaction', () => {
  it('should parse a status form when given status:<stage>', () => {
    expect(parseSatisfaction('status:done')).toEqual({ kind: 'status', stage: 'done' });
  });

  it('should parse fact:merged when given exactly that form', () => {
    expect(parseSatisfaction('fact:merged')).toEqual({ kind: 'merged' });
  });

  it('should parse a deployed form when given fact:deployed:<env>', () => {
    expect(parseSatisfaction('fact:deployed:staging')).toEqual({ kind: 'deployed', environment: 'staging' });
  });

  it('should tolerate surrounding whitespace when the form is otherwise valid', () => {
    expect(parseSatisfaction('  status:implemented ')).toEqual({ kind: 'status', stage: 'implemented' });
  });

  it.each(['', 'done', 'status:', 'fact:deployed:', 'fact:merged:now', 'fact:shipped', 'status:a b'])(
    'should return a parse error value, not throw, when given %j',
    (raw) => {
      const parsed = parseSatisfaction(raw);
      expect(parsed.kind).toBe('invalid');
    },
  );
});

describe('formatSatisfaction', () => {
  it('should round-trip every valid form when formatted back', () => {
    for (const raw of ['status:planned', 'fact:merged', 'fact:deployed:prod']) {
      expect(formatSatisfaction(parseSatisfaction(raw))).toBe(raw);
    }
  });
});

describe('evaluateSatisfaction', () => {
  describe('status form', () => {
    it('should be satisfied when status:done and the blocker is done', () => {
      expect(evaluateSatisfaction('status:done', facts({ status: 'done' })).satisfied).toBe(true);
    });

    it('should not be satisfied when status:done and the blocker is only in release', () => {
      expect(evaluateSatisfaction('status:done', facts({ status: 'release' })).satisfied).toBe(false);
    });

    it('should not be satisfied by a later stage of the order when status:done is required', () => {
      const order = [...STAGES, 'archived'];
      expect(evaluateSatisfaction('status:done', facts({ status: 'archived', stageOrder: order })).satisfied).toBe(
        false,
      );
    });

    it.each(['implemented', 'release', 'done'])(
      'should treat status:implemented as satisfied when blocker is %s',
      (s) => {
        expect(evaluateSatisfaction('status:implemented', facts({ status: s })).satisfied).toBe(true);
      },
    );

    it('should not satisfy status:implemented when the blocker is still implementing', () => {
      expect(evaluateSatisfaction('status:implemented', facts({ status: 'implementing' })).satisfied).toBe(false);
    });

    it('should require equality for other stages when no stage order is known', () => {
      expect(evaluateSatisfaction('status:planned', facts({ status: 'planned' })).satisfied).toBe(true);
      expect(evaluateSatisfaction('status:planned', facts({ status: 'implementing' })).satisfied).toBe(false);
    });

    it('should accept a later stage when the blocker workflow order is supplied on the facts', () => {
      const result = evaluateSatisfaction('status:planned', facts({ status: 'implementing', stageOrder: STAGES }));
      expect(result.satisfied).toBe(true);
    });

    it('should accept a later stage when the order is supplied as an option', () => {
      const result = evaluateSatisfaction('status:planned', facts({ status: 'release' }), { stageOrder: STAGES });
      expect(result.satisfied).toBe(true);
    });

    it('should refuse an earlier stage when the order is supplied', () => {
      const result = evaluateSatisfaction('status:planned', facts({ status: 'refined-idea', stageOrder: STAGES }));
      expect(result.satisfied).toBe(false);
      expect(result.reason).toBe('PRJ-3 is in refined-idea; needs planned or a later stage');
    });

    it.each(['cancelled', 'stopped', 'failed'])(
      'should never satisfy an earlier stage when the blocker is %s, even if listed after it',
      (status) => {
        const order = [...STAGES, 'cancelled', 'stopped', 'failed'];
        expect(evaluateSatisfaction('status:planned', facts({ status, stageOrder: order })).satisfied).toBe(false);
        expect(evaluateSatisfaction('status:implemented', facts({ status })).satisfied).toBe(false);
      },
    );

    it('should fall back to equality when the named stage is not in the order', () => {
      const result = evaluateSatisfaction('status:qa', facts({ status: 'done', stageOrder: STAGES }));
      expect(result.satisfied).toBe(false);
    });

    it('should explain what is missing in the reason and need when unsatisfied', () => {
      const result = evaluateSatisfaction('status:done', facts({ status: 'refining-plan' }));
      expect(result.reason).toBe('PRJ-3 is in refining-plan; needs done');
      expect(result.need).toBe('PRJ-3 reaches done');
      expect(result.form).toEqual({ kind: 'status', stage: 'done' });
    });

    it('should name the implemented rule when status:implemented is unsatisfied', () => {
      const result = evaluateSatisfaction('status:implemented', facts({ status: 'planned' }));
      expect(result.reason).toBe('PRJ-3 is in planned; needs implemented, release or done');
    });

    it('should mark an abandoned blocker as unable to clear when it was cancelled', () => {
      expect(evaluateSatisfaction('status:done', facts({ status: 'cancelled' })).reason).toContain('cannot clear');
    });

    it('should prefer the blockerRef option over the facts ref when labelling', () => {
      const result = evaluateSatisfaction('status:done', facts(), { blockerRef: 'OTHER-9' });
      expect(result.reason.startsWith('OTHER-9 ')).toBe(true);
    });
  });

  describe('merged form', () => {
    it('should be satisfied when merged_at is set', () => {
      const result = evaluateSatisfaction('fact:merged', facts({ status: 'implementing', mergedAt: '2026-01-01' }));
      expect(result.satisfied).toBe(true);
      expect(result.reason).toContain('merged at 2026-01-01');
    });

    it.each(['release', 'done'])('should be satisfied without merged_at when the blocker is %s', (status) => {
      expect(evaluateSatisfaction('fact:merged', facts({ status })).satisfied).toBe(true);
    });

    it('should be satisfied when branch ancestry confirms the merge', () => {
      expect(evaluateSatisfaction('fact:merged', facts({ mergedByAncestry: true })).satisfied).toBe(true);
    });

    it('should not be satisfied when implemented but not merged', () => {
      const result = evaluateSatisfaction('fact:merged', facts({ status: 'implemented' }));
      expect(result.satisfied).toBe(false);
      expect(result.reason).toBe('PRJ-3 is in implemented and not merged; needs a confirmed merge');
    });

    it('should treat an empty merged_at as not merged', () => {
      expect(evaluateSatisfaction('fact:merged', facts({ mergedAt: '' })).satisfied).toBe(false);
    });
  });

  describe('deployed form', () => {
    it('should be satisfied when a succeeded run reached the env and the env is still registered', () => {
      const result = evaluateSatisfaction(
        'fact:deployed:staging',
        facts({ deployedEnvironments: new Set(['staging']), registeredEnvironments: new Set(['staging']) }),
      );
      expect(result.satisfied).toBe(true);
    });

    it('should not be satisfied when the env is no longer registered for the blocker project', () => {
      const result = evaluateSatisfaction(
        'fact:deployed:staging',
        facts({ deployedEnvironments: new Set(['staging']), registeredEnvironments: new Set(['prod']) }),
      );
      expect(result.satisfied).toBe(false);
      expect(result.reason).toBe('PRJ-3 was deployed to staging, but staging is not registered for its project');
    });

    it('should accept a foreign-project run when acceptForeignRuns is set', () => {
      const result = evaluateSatisfaction(
        'fact:deployed:staging',
        facts({ deployedEnvironments: new Set(['staging']) }),
        { acceptForeignRuns: true },
      );
      expect(result.satisfied).toBe(true);
    });

    it('should not be satisfied when no succeeded run reached the env, even if registered', () => {
      const result = evaluateSatisfaction(
        'fact:deployed:prod',
        facts({
          status: 'done',
          deployedEnvironments: new Set(['staging']),
          registeredEnvironments: new Set(['prod']),
        }),
      );
      expect(result.satisfied).toBe(false);
      expect(result.reason).toBe('PRJ-3 has no succeeded deployment to prod; needs deployment');
    });

    it('should name the registration requirement in need when strict', () => {
      expect(evaluateSatisfaction('fact:deployed:prod', facts()).need).toContain('registered for its project');
    });
  });

  describe('missing blocker', () => {
    it('should be unsatisfied with "blocker no longer exists" when facts are absent', () => {
      const result = evaluateSatisfaction('status:done', undefined);
      expect(result.satisfied).toBe(false);
      expect(result.reason).toBe(BLOCKER_MISSING_REASON);
    });

    it('should be unsatisfied for every form when the blocker status is null', () => {
      for (const raw of ['status:done', 'fact:merged', 'fact:deployed:prod']) {
        const result = evaluateSatisfaction(
          raw,
          facts({ status: null, mergedAt: '2026-01-01', deployedEnvironments: new Set(['prod']) }),
        );
        expect(result.satisfied).toBe(false);
        expect(result.reason).toBe(`PRJ-3: ${BLOCKER_MISSING_REASON}`);
      }
    });
  });

  it('should be unsatisfied with the parse error in the reason when the form is invalid', () => {
    const result = evaluateSatisfaction('whenever', facts({ status: 'done' }));
    expect(result.satisfied).toBe(false);
    expect(result.form.kind).toBe('invalid');
    expect(result.reason).toContain('invalid satisfaction "whenever"');
  });
});

describe('isSatisfied', () => {
  it('should agree with evaluateSatisfaction when given the same inputs', () => {
    const cases: [string, BlockerFacts][] = [
      ['status:done', facts({ status: 'done' })],
      ['status:implemented', facts({ status: 'planned' })],
      ['fact:merged', facts({ status: 'release' })],
      ['fact:deployed:x', facts()],
    ];
    for (const [raw, f] of cases) {
      expect(isSatisfied(parseSatisfaction(raw), f)).toBe(evaluateSatisfaction(raw, f).satisfied);
    }
  });
});

describe('blockingTerminal', () => {
  it.each([...TERMINAL_STATUSES])('should be true when the status is %s', (status) => {
    expect(blockingTerminal(status)).toBe(true);
  });

  it('should be false when the status is active or the blocker is missing', () => {
    expect(blockingTerminal('implementing')).toBe(false);
    expect(blockingTerminal(null)).toBe(false);
  });
});

describe('blockingAbandoned', () => {
  it('should be true only when the status is cancelled or stopped', () => {
    expect(blockingAbandoned('cancelled')).toBe(true);
    expect(blockingAbandoned('stopped')).toBe(true);
    expect(blockingAbandoned('failed')).toBe(false);
    expect(blockingAbandoned('done')).toBe(false);
    expect(blockingAbandoned(null)).toBe(false);
  });
});

describe('GATE_POINTS', () => {
  it('should list the spec gate points and dependency sources when read', () => {
    expect(GATE_POINTS).toEqual(['activation', 'integration', 'closure', 'coordination_only']);
    expect(DEPENDENCY_SOURCES).toEqual(['shepherd', 'conduct', 'operator', 'migration', 'feed', 'idea', 'refine']);
  });
});
