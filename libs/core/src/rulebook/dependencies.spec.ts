import { DEPENDENCY_EVIDENCE_LIMIT, dependencyEdgeRefusal, edgeStorable, isSelfDependency } from './dependencies';

const STAGES = ['idea', 'planned', 'implementing', 'done'];
const edge = (satisfaction: string, evidenceLength = 2, blockerStages: readonly string[] = STAGES) => ({
  satisfaction,
  blockerRef: 'ATL-2',
  blockerStages,
  evidenceLength,
});

describe('isSelfDependency', () => {
  it('should be true only when the dependent is the blocker', () => {
    expect(isSelfDependency(4, 4)).toBe(true);
    expect(isSelfDependency(4, 5)).toBe(false);
  });
});

describe('dependencyEdgeRefusal', () => {
  it('should accept each storable form over a stage the blocker has', () => {
    expect(dependencyEdgeRefusal(edge('status:done'))).toBeNull();
    expect(dependencyEdgeRefusal(edge('fact:merged'))).toBeNull();
    expect(dependencyEdgeRefusal(edge('fact:deployed:prod-eu.1'))).toBeNull();
  });

  it('should refuse a form the kernel cannot parse, with its parse error', () => {
    expect(dependencyEdgeRefusal(edge('status:'))).toEqual({
      refuse: 'invalid_satisfaction',
      detail: 'status form needs a stage id',
    });
    expect(dependencyEdgeRefusal(edge('whenever'))).toMatchObject({ refuse: 'invalid_satisfaction' });
  });

  it('should refuse a parsed form the column would refuse (an upper-case stage id)', () => {
    expect(dependencyEdgeRefusal(edge('status:Done', 2, ['Done']))).toEqual({
      refuse: 'invalid_satisfaction',
      detail: 'stage ids are lowercase; environment names use A-Z a-z 0-9 . _ -',
    });
  });

  it("should refuse a status form naming no stage of the blocker's workflow", () => {
    expect(dependencyEdgeRefusal(edge('status:released'))).toEqual({
      refuse: 'invalid_satisfaction',
      detail: "released is not a stage of ATL-2's workflow",
    });
  });

  it("should refuse a status form when the blocker's stages are unknown", () => {
    const unread = { ...edge('status:done'), blockerStages: undefined };
    expect(dependencyEdgeRefusal(unread)).toMatchObject({ refuse: 'invalid_satisfaction' });
  });

  it('should not look at stages for a fact form', () => {
    expect(dependencyEdgeRefusal({ ...edge('fact:merged'), blockerStages: undefined })).toBeNull();
  });

  it('should refuse evidence past the limit, and accept it at the limit', () => {
    expect(dependencyEdgeRefusal(edge('fact:merged', DEPENDENCY_EVIDENCE_LIMIT))).toBeNull();
    expect(dependencyEdgeRefusal(edge('fact:merged', DEPENDENCY_EVIDENCE_LIMIT + 1))).toEqual({
      refuse: 'evidence_too_large',
      limit: DEPENDENCY_EVIDENCE_LIMIT,
    });
  });

  it('should answer a bad form before oversized evidence', () => {
    expect(dependencyEdgeRefusal(edge('status:released', DEPENDENCY_EVIDENCE_LIMIT + 1))).toMatchObject({
      refuse: 'invalid_satisfaction',
    });
  });
});

describe('edgeStorable', () => {
  const storable = (satisfaction: string, evidenceLength = 2) => edgeStorable({ satisfaction, evidenceLength });

  it("should take any form the column takes, whatever the blocker's stages", () => {
    expect(storable('status:released')).toBe(true);
    expect(storable('fact:merged')).toBe(true);
    expect(storable('fact:deployed:prod-eu.1')).toBe(true);
  });

  it('should not take a form the kernel or the column refuses, or evidence past the limit', () => {
    expect(storable('status:')).toBe(false);
    expect(storable('whenever')).toBe(false);
    expect(storable('status:Done')).toBe(false);
    expect(storable('fact:merged', DEPENDENCY_EVIDENCE_LIMIT)).toBe(true);
    expect(storable('fact:merged', DEPENDENCY_EVIDENCE_LIMIT + 1)).toBe(false);
  });

  it('should take every edge dependencyEdgeRefusal accepts', () => {
    const accepted = ['status:done', 'fact:merged', 'fact:deployed:prod', 'status:Done', 'status:', 'whenever']
      .flatMap((satisfaction) => [2, DEPENDENCY_EVIDENCE_LIMIT + 1].map((length) => edge(satisfaction, length)))
      .filter((e) => dependencyEdgeRefusal(e) === null);
    expect(accepted).toHaveLength(3);
    expect(accepted.map((e) => storable(e.satisfaction, e.evidenceLength))).toEqual([true, true, true]);
  });
});
