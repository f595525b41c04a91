import type {
  MachineAuthorizationDecision,
  MachineAuthorizationRecord,
  MachineAuthorizationStarted,
} from '@app/contracts';
import { authorizationDecision } from '@app/core';

import { DISPLAY_ID_MAX, DISPLAY_NAME_MAX, sanitizeForDisplay } from '../display';
import { CODE_LIFETIME_SECONDS, POLL_INTERVAL_SECONDS } from '../limits';
import type { AuthorizationRow } from '../machine-authorization.repository';

// Bodies are checked by the contract's JSON schema (ajv), not class-validator: it is the binding wire contract.

export function toStartedResponse(origin: string, deviceCode: string, userCode: string): MachineAuthorizationStarted {
  const verificationUri = `${origin}/machine-approval`;
  return {
    device_code: deviceCode,
    user_code: userCode,
    verification_uri: verificationUri,
    verification_uri_complete: `${verificationUri}/${userCode}`,
    expires_in: CODE_LIFETIME_SECONDS,
    interval: POLL_INTERVAL_SECONDS,
  };
}

export function decisionOf(row: AuthorizationRow): MachineAuthorizationDecision {
  return authorizationDecision(row);
}

const UNNAMED = '(named at its first poll)';

export function toRecordResponse(code: string, row: AuthorizationRow): MachineAuthorizationRecord {
  return {
    code,
    machine_name: row.machineName === '' ? UNNAMED : sanitizeForDisplay(row.machineName, DISPLAY_NAME_MAX),
    machine_id: row.machineId === '' ? UNNAMED : sanitizeForDisplay(row.machineId, DISPLAY_ID_MAX),
    expires_at: row.expiresAt.toISOString(),
    decision: decisionOf(row),
  };
}
