import { HttpStatus } from '@nestjs/common';

import { errorFactory, ErrorStatusTable } from '../common/domain-error';

// All conflicts with the frontier's state, but for a WIP cap above the policy's asked by one who may not raise it.
export enum ChargeErrorCode {
  ProjectMismatch = 'project_mismatch',
  WaitAdapterEncountered = 'wait_adapter_encountered',
  ItemNotRunnable = 'item_not_runnable',
  DeploymentAwaitingApproval = 'deployment_awaiting_approval',
  EntrypointUnavailable = 'entrypoint_unavailable',
  LaneMismatch = 'lane_mismatch',
  ItemAlreadyClaimed = 'item_already_claimed',
  WipCapReached = 'wip_cap_reached',
  WipCapOverrideForbidden = 'wip_cap_override_forbidden',
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
  [ChargeErrorCode.WipCapOverrideForbidden]: HttpStatus.FORBIDDEN,
};

export const chargeError = errorFactory(CHARGE_ERROR_STATUS);

export const wipCapOverrideForbidden = (
  project: string,
  policyCap: number,
  asked: number,
  organization: string | null,
) =>
  chargeError(
    ChargeErrorCode.WipCapOverrideForbidden,
    `the WIP cap of ${project} is ${policyCap} by its project policy; only an admin of ${
      organization === null ? 'the server' : `organization ${organization}`
    } may raise it (asked ${asked}); ask for at most ${policyCap}, or ask an admin`,
    { project, policy_wip_cap: policyCap, asked_wip_cap: asked, organization },
  );
