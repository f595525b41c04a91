import { HttpStatus } from '@nestjs/common';

import { errorFactory, ErrorStatusTable } from '../common/domain-error';

export enum GateErrorCode {
  BlockedByDependencies = 'blocked_by_dependencies',
}

export const GATE_ERROR_STATUS: ErrorStatusTable<GateErrorCode> = {
  [GateErrorCode.BlockedByDependencies]: HttpStatus.CONFLICT,
};

const gateError = errorFactory(GATE_ERROR_STATUS);

export const blockedByDependencies = (message: string, extra: Record<string, unknown>) =>
  gateError(GateErrorCode.BlockedByDependencies, message, extra);
