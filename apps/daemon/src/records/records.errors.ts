import { HttpStatus } from '@nestjs/common';

import { errorFactory, ErrorStatusTable } from '../common/domain-error';

export enum RecordErrorCode {
  VerdictNotFound = 'verdict_not_found',
  DispositionExists = 'disposition_exists',
  ItemRequired = 'item_required',
  OuroborosEntryNotFound = 'ouroboros_entry_not_found',
  OrganizationMembershipRequired = 'organization_membership_required',
}

export const RECORD_ERROR_STATUS: ErrorStatusTable<RecordErrorCode> = {
  [RecordErrorCode.VerdictNotFound]: HttpStatus.NOT_FOUND,
  [RecordErrorCode.DispositionExists]: HttpStatus.CONFLICT,
  [RecordErrorCode.ItemRequired]: HttpStatus.BAD_REQUEST,
  [RecordErrorCode.OuroborosEntryNotFound]: HttpStatus.NOT_FOUND,
  [RecordErrorCode.OrganizationMembershipRequired]: HttpStatus.FORBIDDEN,
};

const recordError = errorFactory(RECORD_ERROR_STATUS);

export const verdictNotFound = (verdict: string | number, ref: string) =>
  recordError(RecordErrorCode.VerdictNotFound, `no shepherd verdict ${verdict} for ${ref}`);

export const dispositionExists = (caveat: number, ref: string, transition: string, attempt: number) =>
  recordError(
    RecordErrorCode.DispositionExists,
    `caveat ${caveat} of ${ref} ${transition} attempt ${attempt} already has a disposition`,
  );

export const itemRequired = () => recordError(RecordErrorCode.ItemRequired, 'name the item (?item=<ref>)');

export const ouroborosEntryNotFound = (id: string | number) =>
  recordError(RecordErrorCode.OuroborosEntryNotFound, `no ouroboros entry ${id}`);

// Nothing is written without an organization: an entry belongs to one its writer is an active member of.
export const organizationMembershipRequired = () =>
  recordError(
    RecordErrorCode.OrganizationMembershipRequired,
    'you are not an active member of an organization this entry could belong to; ask an organization admin to add you',
  );
