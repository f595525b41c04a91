import { parseSatisfaction } from '../dependencies/satisfaction';

// The organization wall and activation cycles need the database and stay in the daemon.

export const DEPENDENCY_EVIDENCE_LIMIT = 64 * 1024;

// The column's CHECK constraint, so a form the kernel parses but the table refuses is a 400, not a 500.
const STORABLE_SATISFACTION = /^(status:[a-z][a-z0-9-]*|fact:merged|fact:deployed:[A-Za-z0-9._-]+)$/;

export type DependencyEdgeRefusal =
  { refuse: 'invalid_satisfaction'; detail: string } | { refuse: 'evidence_too_large'; limit: number };

export function isSelfDependency(dependentId: number, blockerId: number): boolean {
  return dependentId === blockerId;
}

// What the table's constraints hold an edge to, before its blocker is read: a satisfaction the kernel parses and the
// column's CHECK admits, and evidence within the limit. An edge that passes may be inserted ahead of the stage check
// that dependencyEdgeRefusal adds (the daemon's add does, in the statement that reads its ends; a refusal then rolls
// the insert back).
export function edgeStorable(edge: { satisfaction: string; evidenceLength: number }): boolean {
  return (
    parseSatisfaction(edge.satisfaction).kind !== 'invalid' &&
    STORABLE_SATISFACTION.test(edge.satisfaction) &&
    edge.evidenceLength <= DEPENDENCY_EVIDENCE_LIMIT
  );
}

// `blockerStages`: the blocker's pinned workflow stages in order (undefined when not read: no stage is then valid).
export function dependencyEdgeRefusal(edge: {
  satisfaction: string;
  blockerRef: string;
  blockerStages: readonly string[] | undefined;
  evidenceLength: number;
}): DependencyEdgeRefusal | null {
  const form = parseSatisfaction(edge.satisfaction);
  if (form.kind === 'invalid') return { refuse: 'invalid_satisfaction', detail: form.error };
  if (!STORABLE_SATISFACTION.test(edge.satisfaction)) {
    return {
      refuse: 'invalid_satisfaction',
      detail: 'stage ids are lowercase; environment names use A-Z a-z 0-9 . _ -',
    };
  }
  if (form.kind === 'status' && !(edge.blockerStages ?? []).includes(form.stage)) {
    return { refuse: 'invalid_satisfaction', detail: `${form.stage} is not a stage of ${edge.blockerRef}'s workflow` };
  }
  if (edge.evidenceLength > DEPENDENCY_EVIDENCE_LIMIT) {
    return { refuse: 'evidence_too_large', limit: DEPENDENCY_EVIDENCE_LIMIT };
  }
  return null;
}
