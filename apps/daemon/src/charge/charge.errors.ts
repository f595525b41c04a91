import { HttpStatus } from '@nestjs/common';

import { errorFactory, ErrorStatusTable } from '../common/domain-error';

// Every refusal of a charge dispatch is a conflict with the frontier's state at the time of the request.
export enum ChargeErrorCode {
  ProjectMismatch = 'project_mismatch',
  WaitAdapterEncountered = 'wait_adapter_encountered',
  ItemNotRunnable = 'item_not_runnable',
  DeploymentAwaitingApproval = 'deployment_awaiting_approval',
  EntrypointUnavailable = 'entrypoint_unavailable',
  LaneMismatch = 'lane_mismatch',
  ItemAlreadyClaimed = 'item_already_claimed',
  WipCapReached = 'wip_cap_reached',
}

export const CHARGE_ERROR_STATUS: ErrorStatusTable<ChargeErrorCode> = {
  [ChargeErrorCode.ProjectMismatch]: HttpStatus.CONFLICT,
  [ChargeErrorCode.WaitAdapterEncountered]: HttpStatus.CONFLICT,
  [ChargeErrorCode.ItemNotRunnable]: HttpStatus.CONFLICT,
  [ChargeErrorCode.DeploymentAwaitingApproval]: HttpStatus.CONFLICT,
  [ChargeErrorCode.EntrypointUnavailable]: HttpStatus.CONFLICT,
  [ChargeErrorCode.LaneMismatch]: HttpStatus.CONFLICT,
  [ChargeErrorCode.ItemAlreadyClaimed]: HttpStatus.CONFLICT,
  [ChargeErrorCode.WipCapReached]: HttpStatus.CONFLICT,
};

// The dispatch refusals carry the decision's facts (item, bucket, event) as extra fields: one typed constructor
// whose code must be one of the enum's.
export const chargeError = errorFactory(CHARGE_ERROR_STATUS);
