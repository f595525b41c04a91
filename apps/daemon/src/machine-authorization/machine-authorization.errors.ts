import { HttpStatus } from '@nestjs/common';

import { describeMachineAuthorizationError, MachineAuthorizationErrorCode } from '@app/contracts';
import type { MachineAuthorizationRefusal } from '@app/core';

import { DomainError, errorFactory, ErrorStatusTable } from '../common/domain-error';

export { MachineAuthorizationErrorCode as MaCode } from '@app/contracts';

// The contract's codes: their status comes from the contract's x-http table, never from here.
export const MACHINE_AUTHORIZATION_ERROR_STATUS: ErrorStatusTable<MachineAuthorizationErrorCode> = Object.fromEntries(
  Object.values(MachineAuthorizationErrorCode).map((code) => [code, describeMachineAuthorizationError(code).status]),
) as Record<MachineAuthorizationErrorCode, HttpStatus>;

// Not contract codes: the contract lists no throttle for the request-scoped functions.
export enum MachineRequestErrorCode {
  ResolveRateLimited = 'authorization_resolve_rate_limited',
  CodeMismatch = 'authorization_code_mismatch',
}

export const MACHINE_REQUEST_ERROR_STATUS: ErrorStatusTable<MachineRequestErrorCode> = {
  [MachineRequestErrorCode.ResolveRateLimited]: HttpStatus.TOO_MANY_REQUESTS,
  [MachineRequestErrorCode.CodeMismatch]: HttpStatus.CONFLICT,
};

const contractError = errorFactory(MACHINE_AUTHORIZATION_ERROR_STATUS);
const machineRequestError = errorFactory(MACHINE_REQUEST_ERROR_STATUS);

export function maError(
  code: MachineAuthorizationErrorCode,
  message: string,
  headers: Record<string, string> = {},
): DomainError {
  return contractError(code, message, {}, headers);
}

export const refusalError = (refusal: MachineAuthorizationRefusal): DomainError =>
  maError(
    refusal.code as MachineAuthorizationErrorCode,
    refusal.message,
    refusal.retryAfter === undefined ? {} : { 'retry-after': String(refusal.retryAfter) },
  );

export const rateLimited = (code: MachineAuthorizationErrorCode, retryAfter: number, what: string) =>
  maError(code, `too many ${what} from this address; retry in ${retryAfter} s`, { 'retry-after': String(retryAfter) });

export const unknownCode = () =>
  maError(
    MachineAuthorizationErrorCode.NotFound,
    'no authorization is waiting with this code (unknown, expired or used)',
  );

export const resolveRateLimited = (retryAfter: number) =>
  machineRequestError(
    MachineRequestErrorCode.ResolveRateLimited,
    `too many unknown codes; retry in ${retryAfter} s`,
    {},
    { 'retry-after': String(retryAfter) },
  );

export const codeMismatch = () =>
  machineRequestError(
    MachineRequestErrorCode.CodeMismatch,
    'the code you typed belongs to another machine request than the one selected; nothing was decided',
  );

export const requestGone = () =>
  maError(
    MachineAuthorizationErrorCode.NotFound,
    'this machine request is no longer waiting (decided, used or expired) or does not exist',
  );
