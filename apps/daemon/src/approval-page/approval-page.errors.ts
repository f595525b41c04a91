import { HttpStatus } from '@nestjs/common';

import { errorFactory, ErrorStatusTable } from '../common/domain-error';

export enum ApprovalPageErrorCode {
  SignInRateLimited = 'sign_in_rate_limited',
}

export const APPROVAL_PAGE_ERROR_STATUS: ErrorStatusTable<ApprovalPageErrorCode> = {
  [ApprovalPageErrorCode.SignInRateLimited]: HttpStatus.TOO_MANY_REQUESTS,
};

const approvalPageError = errorFactory(APPROVAL_PAGE_ERROR_STATUS);

export const signInRateLimited = (retryAfter: number, what = 'failed sign-ins') =>
  approvalPageError(
    ApprovalPageErrorCode.SignInRateLimited,
    `too many ${what}; retry in ${retryAfter} s`,
    {},
    { 'retry-after': String(retryAfter) },
  );
