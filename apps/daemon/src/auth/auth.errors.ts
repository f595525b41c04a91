import { HttpStatus } from '@nestjs/common';

import { errorFactory, ErrorStatusTable, unauthorized } from '../common/domain-error';

export enum AuthErrorCode {
  ActorDisabled = 'actor_disabled',
}

export const AUTH_ERROR_STATUS: ErrorStatusTable<AuthErrorCode> = {
  [AuthErrorCode.ActorDisabled]: HttpStatus.FORBIDDEN,
};

const authError = errorFactory(AUTH_ERROR_STATUS);

export const bearerRequired = () =>
  unauthorized('a valid bearer token is required (svc connect, or SVC_TOKEN)', { 'www-authenticate': 'Bearer' });

export const callerDisabled = () =>
  authError(AuthErrorCode.ActorDisabled, 'this actor is disabled; ask an organization admin to re-enable it');
