import { DomainError } from '../common/domain-error';

// The deployments feature's error catalogue (codes added with the explicit resume, issue 15).
export const DEPLOYMENT_ERROR_CODES = {
  runNotFound: 'deployment_run_not_found',
  runNotHalted: 'run_not_halted',
  runStillHalted: 'run_still_halted',
} as const;

// The state of a run an error carries, as the run's wire shape words it.
export interface RunStateDetail {
  id: string;
  status: string;
  environment: string;
  current_stage: string | null;
  stage_index: number;
  stage_count: number;
  halt: { kind: string; stage: string; missing: string[]; since: string; summary: string } | null;
}

// A run the caller may not see answers exactly like a missing one.
export const deploymentRunNotFound = (id: string) =>
  new DomainError(DEPLOYMENT_ERROR_CODES.runNotFound, `no deployment run ${id}`, 404);

// Resume continues a halted run only; a second resume of the same halt lands here and changes nothing.
export const runNotHalted = (run: RunStateDetail) =>
  new DomainError(
    DEPLOYMENT_ERROR_CODES.runNotHalted,
    `deployment run ${run.id} is not halted (it is ${run.status}${run.current_stage ? ` at ${run.current_stage}` : ''}); nothing to resume`,
    409,
    { run },
  );

// The gate still holds: the resume changed nothing and says what is still in the way.
export const runStillHalted = (run: RunStateDetail, itemRefs: readonly string[]) => {
  const halt = run.halt!;
  const next =
    halt.kind === 'awaiting-approval'
      ? `approve it first (svc approve ${itemRefs[0] ?? '<ref>'})`
      : `provide ${halt.missing.join(', ')} (declare it with --capabilities) and resume again`;
  return new DomainError(
    DEPLOYMENT_ERROR_CODES.runStillHalted,
    `deployment run ${run.id} is still halted: ${halt.summary}; ${next}`,
    409,
    { run, missing: halt.missing },
  );
};
