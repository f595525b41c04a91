import { HttpStatus } from '@nestjs/common';

import { errorFactory, ErrorStatusTable } from '../common/domain-error';

export enum RefErrorCode {
  InvalidRef = 'invalid_ref',
  ItemNotFound = 'item_not_found',
}

export const REF_ERROR_STATUS: ErrorStatusTable<RefErrorCode> = {
  [RefErrorCode.InvalidRef]: HttpStatus.BAD_REQUEST,
  [RefErrorCode.ItemNotFound]: HttpStatus.NOT_FOUND,
};

const refError = errorFactory(REF_ERROR_STATUS);

export const invalidRef = (ref: string) =>
  refError(RefErrorCode.InvalidRef, `"${ref.slice(0, 40)}" is not an item ref such as ABC-12`);

export const invalidRefs = (refs: readonly string[]) =>
  refError(RefErrorCode.InvalidRef, `not item refs: ${refs.join(', ')}`);

export const itemNotFound = (ref: string) => refError(RefErrorCode.ItemNotFound, `no item ${ref}`, { item_id: ref });

export const itemsNotFound = (missing: readonly string[]) =>
  refError(RefErrorCode.ItemNotFound, `no items ${missing.join(', ')}`, { missing });
