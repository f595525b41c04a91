import { HttpStatus } from '@nestjs/common';

// Services throw these through their catalogue's `errorFactory`, never by hand.
export class DomainError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

// A feature's code → status table: a Record over its enum, so the compiler refuses a code without a status.
export type ErrorStatusTable<Code extends string> = Readonly<Record<Code, HttpStatus>>;

export function errorFactory<Code extends string>(table: ErrorStatusTable<Code>) {
  return (
    code: Code,
    message: string,
    extra: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ): DomainError => new DomainError(code, message, table[code], extra, headers);
}

export enum GenericErrorCode {
  ValidationFailed = 'validation_failed',
  InvalidRequest = 'invalid_request',
  Unauthorized = 'unauthorized',
  Forbidden = 'forbidden',
  NotFound = 'not_found',
  Conflict = 'conflict',
  PayloadTooLarge = 'payload_too_large',
  UnsupportedMediaType = 'unsupported_media_type',
  InternalError = 'internal_error',
  Unavailable = 'service_unavailable',
  DatabaseUnavailable = 'database_unavailable',
  ShuttingDown = 'shutting_down',
}

export const GENERIC_ERROR_STATUS: ErrorStatusTable<GenericErrorCode> = {
  [GenericErrorCode.ValidationFailed]: HttpStatus.BAD_REQUEST,
  [GenericErrorCode.InvalidRequest]: HttpStatus.BAD_REQUEST,
  [GenericErrorCode.Unauthorized]: HttpStatus.UNAUTHORIZED,
  [GenericErrorCode.Forbidden]: HttpStatus.FORBIDDEN,
  [GenericErrorCode.NotFound]: HttpStatus.NOT_FOUND,
  [GenericErrorCode.Conflict]: HttpStatus.CONFLICT,
  [GenericErrorCode.PayloadTooLarge]: HttpStatus.PAYLOAD_TOO_LARGE,
  [GenericErrorCode.UnsupportedMediaType]: HttpStatus.UNSUPPORTED_MEDIA_TYPE,
  [GenericErrorCode.InternalError]: HttpStatus.INTERNAL_SERVER_ERROR,
  [GenericErrorCode.Unavailable]: HttpStatus.SERVICE_UNAVAILABLE,
  [GenericErrorCode.DatabaseUnavailable]: HttpStatus.SERVICE_UNAVAILABLE,
  [GenericErrorCode.ShuttingDown]: HttpStatus.SERVICE_UNAVAILABLE,
};

// The enum under its former name, for code written against it; new code uses GenericErrorCode.
export const GENERIC_ERROR_CODES = {
  validationFailed: GenericErrorCode.ValidationFailed,
  invalidRequest: GenericErrorCode.InvalidRequest,
  unauthorized: GenericErrorCode.Unauthorized,
  forbidden: GenericErrorCode.Forbidden,
  notFound: GenericErrorCode.NotFound,
  conflict: GenericErrorCode.Conflict,
  payloadTooLarge: GenericErrorCode.PayloadTooLarge,
  unsupportedMediaType: GenericErrorCode.UnsupportedMediaType,
  internalError: GenericErrorCode.InternalError,
  unavailable: GenericErrorCode.Unavailable,
  databaseUnavailable: GenericErrorCode.DatabaseUnavailable,
  shuttingDown: GenericErrorCode.ShuttingDown,
} as const;

const genericError = errorFactory(GENERIC_ERROR_STATUS);

export interface FieldProblems {
  field: string;
  problems: string[];
}

export const notFound = (what: string, extra: Record<string, unknown> = {}) =>
  genericError(GenericErrorCode.NotFound, `${what} not found`, extra);

export const invalidRequest = (message: string, extra: Record<string, unknown> = {}) =>
  genericError(GenericErrorCode.InvalidRequest, message, extra);

// 400 validation_failed listing every failed field; the message names them, values are never echoed.
export const validationFailed = (fields: FieldProblems[], fallback = 'invalid request') =>
  genericError(
    GenericErrorCode.ValidationFailed,
    fields.map((f) => `${f.field}: ${f.problems.join(', ')}`).join('; ') || fallback,
    { fields },
  );

export const validationMessage = (message: string) => genericError(GenericErrorCode.ValidationFailed, message);

export const payloadTooLarge = (message: string) => genericError(GenericErrorCode.PayloadTooLarge, message);

export const unauthorized = (message: string, headers: Record<string, string> = {}) =>
  genericError(GenericErrorCode.Unauthorized, message, {}, headers);

export const forbidden = (message: string) => genericError(GenericErrorCode.Forbidden, message);

// A fact the daemon relies on is missing (a bug or a damaged database): answered 500, logged with the stack.
export const internalError = (message: string) => genericError(GenericErrorCode.InternalError, message);

export const databaseUnavailable = (retryAfterSeconds: number, extra: Record<string, unknown> = {}) =>
  genericError(
    GenericErrorCode.DatabaseUnavailable,
    `the database is unavailable; retry in ${retryAfterSeconds} s`,
    extra,
    { 'retry-after': String(retryAfterSeconds) },
  );

export const notReady = (message: string, extra: Record<string, unknown> = {}) =>
  genericError(GenericErrorCode.Unavailable, message, extra);

export const shuttingDown = (retryAfterSeconds: number) =>
  genericError(
    GenericErrorCode.ShuttingDown,
    `this replica is shutting down; retry in ${retryAfterSeconds} s`,
    {},
    { 'retry-after': String(retryAfterSeconds), connection: 'close' },
  );
