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
};

// The refusals carry the run's state as extra fields; the code must be one of the enum's and the status comes
// from the table.
export const deploymentError = errorFactory(DEPLOYMENT_ERROR_STATUS);
