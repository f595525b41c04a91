import { HttpStatus } from '@nestjs/common';

import { errorFactory, ErrorStatusTable } from '../common/domain-error';

export enum SessionErrorCode {
  SessionNotFound = 'session_not_found',
  SessionEnded = 'session_ended',
}

export const SESSION_ERROR_STATUS: ErrorStatusTable<SessionErrorCode> = {
  [SessionErrorCode.SessionNotFound]: HttpStatus.NOT_FOUND,
  [SessionErrorCode.SessionEnded]: HttpStatus.CONFLICT,
};

const sessionError = errorFactory(SESSION_ERROR_STATUS);

export const sessionNotFound = (id: number | string) =>
  sessionError(SessionErrorCode.SessionNotFound, `no executor session ${id}`, { session_id: id });

export const sessionEnded = (id: number | string) =>
  sessionError(SessionErrorCode.SessionEnded, `executor session ${id} has ended`);
