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
  // a run moved into or past a stage whose approval is not recorded, or succeeded without it
  ApprovalRequired = 'approval_required',
  // flows and runs of an environment with approval stages are written only by those who may approve
  ApproverRequired = 'approver_required',
  EnvironmentAdminRequired = 'environment_admin_required',
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
  [DeploymentErrorCode.ApprovalRequired]: HttpStatus.CONFLICT,
  [DeploymentErrorCode.ApproverRequired]: HttpStatus.FORBIDDEN,
  [DeploymentErrorCode.EnvironmentAdminRequired]: HttpStatus.FORBIDDEN,
};

export const deploymentError = errorFactory(DEPLOYMENT_ERROR_STATUS);

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

export const approvalRequired = (
  run: RunStateDetail | null,
  environment: string,
  need: { stage: string | null; stage_index: number | null; required_approval: string | null },
  itemRefs: readonly string[],
) => {
  const which = run ? `deployment run ${run.id}` : 'a new deployment run';
  const by = need.required_approval === 'admin' ? 'an admin' : 'a member';
  return deploymentError(
    DeploymentErrorCode.ApprovalRequired,
    need.stage
      ? `${which} cannot pass ${need.stage} (stage ${need.stage_index}) before its approval is recorded; let it halt there and approve it (svc approve ${itemRefs[0] ?? '<ref>'}) first`
      : `${which} to ${environment} cannot succeed without an approval by ${by} recorded on it: ${environment} has approval stages`,
    { run, ...need },
  );
};

export const approverRequired = (
  what: string,
  environment: string,
  required: 'admin' | 'member',
  organization: string | null,
) =>
  deploymentError(
    DeploymentErrorCode.ApproverRequired,
    `${what} in environment ${environment} needs someone who may approve its deployments (${required === 'admin' ? 'an admin' : 'an active member'}${organization ? ` of ${organization}` : ''})`,
    { environment, required, organization },
  );

// Retiring or un-retiring an environment needs an admin of the project's organization (or an unconfined server admin).
export const environmentAdminRequired = (
  what: 'retire' | 'unretire',
  environment: string,
  organization: string | null,
) =>
  deploymentError(
    DeploymentErrorCode.EnvironmentAdminRequired,
    `only an admin${organization ? ` of ${organization}` : ' of the server'} may ${what === 'retire' ? 'retire' : 'un-retire'} environment ${environment}`,
    { environment, organization, required: 'admin' },
  );

export const environmentNotFound = (project: string, name: string) =>
  deploymentError(DeploymentErrorCode.EnvironmentNotFound, `project ${project} has no environment ${name}`);
