import { HttpStatus } from '@nestjs/common';

import { errorFactory, ErrorStatusTable } from '../common/domain-error';

export enum DeploymentErrorCode {
  DeploymentFlowNotFound = 'deployment_flow_not_found',
  DeploymentFlowExists = 'deployment_flow_exists',
  EnvironmentExists = 'environment_exists',
  EnvironmentNotFound = 'environment_not_found',
  DeploymentRunNotFound = 'deployment_run_not_found',
  NotAwaitingApproval = 'not_awaiting_approval',
  AlreadyApproved = 'already_approved',
  OrganizationMembershipRequired = 'organization_membership_required',
  AdminApprovalRequired = 'admin_approval_required',
  DeploymentIncomplete = 'deployment_incomplete',
  RunNotHalted = 'run_not_halted',
  RunStillHalted = 'run_still_halted',
}

export const DEPLOYMENT_ERROR_STATUS: ErrorStatusTable<DeploymentErrorCode> = {
  [DeploymentErrorCode.DeploymentFlowNotFound]: HttpStatus.NOT_FOUND,
  [DeploymentErrorCode.DeploymentFlowExists]: HttpStatus.CONFLICT,
  [DeploymentErrorCode.EnvironmentExists]: HttpStatus.CONFLICT,
  [DeploymentErrorCode.EnvironmentNotFound]: HttpStatus.NOT_FOUND,
  [DeploymentErrorCode.DeploymentRunNotFound]: HttpStatus.NOT_FOUND,
  [DeploymentErrorCode.NotAwaitingApproval]: HttpStatus.CONFLICT,
  [DeploymentErrorCode.AlreadyApproved]: HttpStatus.CONFLICT,
  [DeploymentErrorCode.OrganizationMembershipRequired]: HttpStatus.FORBIDDEN,
  [DeploymentErrorCode.AdminApprovalRequired]: HttpStatus.FORBIDDEN,
  [DeploymentErrorCode.DeploymentIncomplete]: HttpStatus.CONFLICT,
  [DeploymentErrorCode.RunNotHalted]: HttpStatus.CONFLICT,
  [DeploymentErrorCode.RunStillHalted]: HttpStatus.CONFLICT,
};

// The refusals carry the run's state as extra fields; the code must be one of the enum's and the status comes
// from the table.
export const deploymentError = errorFactory(DEPLOYMENT_ERROR_STATUS);

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
  deploymentError(DeploymentErrorCode.DeploymentRunNotFound, `no deployment run ${id}`);

// Resume continues a halted run only; a second resume of the same halt lands here and changes nothing.
export const runNotHalted = (run: RunStateDetail) =>
  deploymentError(
    DeploymentErrorCode.RunNotHalted,
    `deployment run ${run.id} is not halted (it is ${run.status}${run.current_stage ? ` at ${run.current_stage}` : ''}); nothing to resume`,
    { run },
  );

// The gate still holds: the resume changed nothing and says what is still in the way.
export const runStillHalted = (run: RunStateDetail, itemRefs: readonly string[]) => {
  const halt = run.halt!;
  const next =
    halt.kind === 'awaiting-approval'
      ? `approve it first (svc approve ${itemRefs[0] ?? '<ref>'})`
      : `provide ${halt.missing.join(', ')} (declare it with --capabilities) and resume again`;
  return deploymentError(
    DeploymentErrorCode.RunStillHalted,
    `deployment run ${run.id} is still halted: ${halt.summary}; ${next}`,
    { run, missing: halt.missing },
  );
};
