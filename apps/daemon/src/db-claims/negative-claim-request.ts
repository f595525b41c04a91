import { DB_CLAIM_RESERVED_KEYS, DbClaimValidationError, validateNegativeReason } from '@app/core';

import { DbClaimErrorCode } from './db-claims.errors';

export interface NegativeClaimRequest {
  reason: string;
}

export type NegativeClaimRequestResult =
  { ok: true; request: NegativeClaimRequest } | { ok: false; errors: DbClaimValidationError[] };

const ALLOWED_KEYS: ReadonlySet<string> = new Set(['state', 'reason']);
const RESERVED_KEYS: ReadonlySet<string> = new Set(DB_CLAIM_RESERVED_KEYS);

// Only the envelope (an object, state none if given, no other keys); the reason rule is the core's.
export function validateNegativeClaimRequest(raw: unknown): NegativeClaimRequestResult {
  if (Object.prototype.toString.call(raw) !== '[object Object]') {
    return {
      ok: false,
      errors: [
        { field: '$', code: DbClaimErrorCode.Invalid, message: 'the negative claim must be a JSON object { reason }' },
      ],
    };
  }
  const body = raw as Record<string, unknown>;
  const errors: DbClaimValidationError[] = [];
  for (const key of Object.keys(body)) {
    if (ALLOWED_KEYS.has(key)) continue;
    if (RESERVED_KEYS.has(key)) {
      errors.push({
        field: key,
        code: DbClaimErrorCode.ReservedKey,
        message: `${key} is workflow-managed; the shortcut sets it`,
      });
    } else {
      errors.push({
        field: key,
        code: DbClaimErrorCode.UnknownKey,
        message: `${JSON.stringify(key)} is not a field of the negative claim (only reason)`,
      });
    }
  }
  const own = (key: string): unknown => (Object.prototype.hasOwnProperty.call(body, key) ? body[key] : undefined);
  const state = own('state');
  if (state !== undefined && state !== 'none') {
    errors.push({
      field: 'state',
      code: DbClaimErrorCode.Invalid,
      message: 'state must be none for the negative claim shortcut; declare a claim with the full payload',
    });
  }
  const reason = own('reason');
  errors.push(...validateNegativeReason(reason));
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, request: { reason: reason as string } };
}
