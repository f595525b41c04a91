import { HttpStatus } from '@nestjs/common';

import { errorFactory, ErrorStatusTable } from '../common/domain-error';

export enum HistoryErrorCode {
  SessionNotFound = 'session_not_found',
}

export const HISTORY_ERROR_STATUS: ErrorStatusTable<HistoryErrorCode> = {
  [HistoryErrorCode.SessionNotFound]: HttpStatus.NOT_FOUND,
};

const historyError = errorFactory(HISTORY_ERROR_STATUS);

export const historySessionNotFound = (id: number) =>
  historyError(HistoryErrorCode.SessionNotFound, `no executor session ${id} of yours`);
