import { HttpStatus } from '@nestjs/common';

import { claimRefusalMessage, ClaimHolder } from '@app/core';

import { errorFactory, ErrorStatusTable } from '../common/domain-error';

export enum RulebookErrorCode {
  ItemClaimedElsewhere = 'item_claimed_elsewhere',
  ForceNotAllowed = 'force_not_allowed',
  SessionNotFound = 'session_not_found',
  SessionEnded = 'session_ended',
}

export const RULEBOOK_ERROR_STATUS: ErrorStatusTable<RulebookErrorCode> = {
  [RulebookErrorCode.ItemClaimedElsewhere]: HttpStatus.CONFLICT,
  [RulebookErrorCode.ForceNotAllowed]: HttpStatus.FORBIDDEN,
  [RulebookErrorCode.SessionNotFound]: HttpStatus.NOT_FOUND,
  [RulebookErrorCode.SessionEnded]: HttpStatus.CONFLICT,
};

const rulebookError = errorFactory(RULEBOOK_ERROR_STATUS);

function holderWire(holder: ClaimHolder) {
  return {
    actor: holder.actor,
    session_id: holder.sessionId,
    harness: holder.harness,
    expires_at: holder.expiresAt.toISOString(),
  };
}

export const itemClaimedElsewhere = (ref: string, holder: ClaimHolder) =>
  rulebookError(RulebookErrorCode.ItemClaimedElsewhere, claimRefusalMessage(ref, holder), {
    item_id: ref,
    holder: holderWire(holder),
  });

export const forceNotAllowed = (ref: string, holder: ClaimHolder) =>
  rulebookError(
    RulebookErrorCode.ForceNotAllowed,
    `force on ${ref} needs an admin of its project's organization; ${claimRefusalMessage(ref, holder)}`,
    { item_id: ref, holder: holderWire(holder) },
  );

export const writerSessionNotFound = (id: string) =>
  rulebookError(RulebookErrorCode.SessionNotFound, `no executor session ${id.slice(0, 20)} of yours (x-svc-session)`);

export const writerSessionEnded = (id: number) =>
  rulebookError(RulebookErrorCode.SessionEnded, `executor session ${id} has ended (x-svc-session); register a new one`);
