import { HttpStatus } from '@nestjs/common';

import { errorFactory, ErrorStatusTable } from '../common/domain-error';

export enum TeamErrorCode {
  ActorExists = 'actor_exists',
  EmailTaken = 'email_taken',
  CannotDisableSelf = 'cannot_disable_self',
  LastAdmin = 'last_admin',
  // the target of the change is disabled (the caller is not): a conflict with its state
  ActorDisabled = 'actor_disabled',
  // taken in their view or not: it does not say where
  NameUnavailable = 'name_unavailable',
  OrganizationExists = 'organization_exists',
}

export const TEAM_ERROR_STATUS: ErrorStatusTable<TeamErrorCode> = {
  [TeamErrorCode.ActorExists]: HttpStatus.CONFLICT,
  [TeamErrorCode.EmailTaken]: HttpStatus.CONFLICT,
  [TeamErrorCode.CannotDisableSelf]: HttpStatus.CONFLICT,
  [TeamErrorCode.LastAdmin]: HttpStatus.CONFLICT,
  [TeamErrorCode.ActorDisabled]: HttpStatus.CONFLICT,
  [TeamErrorCode.NameUnavailable]: HttpStatus.CONFLICT,
  [TeamErrorCode.OrganizationExists]: HttpStatus.CONFLICT,
};

const teamError = errorFactory(TEAM_ERROR_STATUS);

export const actorExists = (name: string) =>
  teamError(TeamErrorCode.ActorExists, `an actor named ${name} already exists`);

export const emailTaken = () => teamError(TeamErrorCode.EmailTaken, 'another actor already has this email');

export const cannotDisableSelf = () =>
  teamError(TeamErrorCode.CannotDisableSelf, 'you cannot disable yourself; ask another admin');

export const lastAdmin = (actor: string, organization: string) =>
  teamError(TeamErrorCode.LastAdmin, `${actor} is the last admin of ${organization}; make another member admin first`);

export const targetDisabled = (name: string) =>
  teamError(TeamErrorCode.ActorDisabled, `${name} is disabled; enable them first`);

export const nameUnavailable = (name: string) =>
  teamError(TeamErrorCode.NameUnavailable, `the name ${name} is not available; choose another`);

export const organizationExists = (slug: string) =>
  teamError(TeamErrorCode.OrganizationExists, `an organization ${slug} already exists`);
