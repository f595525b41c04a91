import { HttpStatus } from '@nestjs/common';

import { errorFactory, ErrorStatusTable } from '../common/domain-error';

export enum OidcErrorCode {
  SignInFailed = 'sign_in_failed',
  SignInNotAdmitted = 'sign_in_not_admitted',
  ActorDisabled = 'actor_disabled',
  OidcUnavailable = 'oidc_unavailable',
}

export const OIDC_ERROR_STATUS: ErrorStatusTable<OidcErrorCode> = {
  [OidcErrorCode.SignInFailed]: HttpStatus.UNAUTHORIZED,
  [OidcErrorCode.SignInNotAdmitted]: HttpStatus.FORBIDDEN,
  [OidcErrorCode.ActorDisabled]: HttpStatus.FORBIDDEN,
  [OidcErrorCode.OidcUnavailable]: HttpStatus.SERVICE_UNAVAILABLE,
};

const oidcError = errorFactory(OIDC_ERROR_STATUS);

export const signInFailed = (message: string) => oidcError(OidcErrorCode.SignInFailed, message);

export const signInNotAdmitted = (email: string | null) =>
  oidcError(
    OidcErrorCode.SignInNotAdmitted,
    email
      ? `${email} is not admitted here; ask an admin to invite you (svc actors create <name> --email ${email})`
      : 'your company account has no email; ask an admin to invite you',
  );

export const signInActorDisabled = () =>
  oidcError(OidcErrorCode.ActorDisabled, 'your account is disabled; ask an organization admin to re-enable it');

export const oidcUnavailable = () =>
  oidcError(
    OidcErrorCode.OidcUnavailable,
    'the company sign-in provider does not answer; try again or sign in with an API token',
  );
