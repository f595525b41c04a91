import { describeMachineAuthorizationError, MachineAuthorizationErrorCode } from '@app/contracts';

import { DomainError } from '../common/domain-error';

export { MachineAuthorizationErrorCode as MaCode } from '@app/contracts';

// Failed code lookups by approvers; not a contract code (the contract lists no throttle for the two functions).
export const RESOLVE_RATE_LIMITED = 'authorization_resolve_rate_limited';

// The status of every contract code comes from the contract's x-http table, never from here.
export function maError(
  code: MachineAuthorizationErrorCode,
  message: string,
  headers: Record<string, string> = {},
): DomainError {
  return new DomainError(code, message, describeMachineAuthorizationError(code).status, {}, headers);
}

export const rateLimited = (code: MachineAuthorizationErrorCode, retryAfter: number, what: string) =>
  maError(code, `too many ${what} from this address; retry in ${retryAfter} s`, { 'retry-after': String(retryAfter) });

export const unknownCode = () =>
  maError(
    MachineAuthorizationErrorCode.NotFound,
    'no authorization is waiting with this code (unknown, expired or used)',
  );

// The request-scoped resolve (GET /v1/machine-authorizations lists, the TUI decides one): not contract codes.
export const AUTHORIZATION_CODE_MISMATCH = 'authorization_code_mismatch';

export const codeMismatch = () =>
  new DomainError(
    AUTHORIZATION_CODE_MISMATCH,
    'the code you typed belongs to another machine request than the one selected; nothing was decided',
    409,
  );

export const requestGone = () =>
  maError(
    MachineAuthorizationErrorCode.NotFound,
    'this machine request is no longer waiting (decided, used or expired) or does not exist',
  );
