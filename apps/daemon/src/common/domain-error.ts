import { HttpStatus } from '@nestjs/common';

// Every refusal the daemon answers with: a wire code from the spec (or a documented one), a message for people,
// the HTTP status, optional extra body fields (e.g. `projects` for project_required) and optional headers.
// Services do not build one by hand: each feature's `<feature>.errors.ts` owns an enum of its codes, an exhaustive
// code → status table and named constructors (see `errorFactory`).
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

// The one way a catalogue builds its errors: the status always comes from the table, never from the throw site.
export function errorFactory<Code extends string>(table: ErrorStatusTable<Code>) {
  return (
    code: Code,
    message: string,
    extra: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ): DomainError => new DomainError(code, message, table[code], extra, headers);
}

// Codes any feature may answer with (validation, authentication, the framework's refusals, outages).
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
  // The database is down, restarting or unreachable: retry after the Retry-After delay.
  DatabaseUnavailable = 'database_unavailable',
  // This replica is stopping (SIGTERM): retry after the Retry-After delay, through the proxy another replica answers.
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

// A validation failure described in one sentence (no per-field list).
export const validationMessage = (message: string) => genericError(GenericErrorCode.ValidationFailed, message);

// 413 payload_too_large: a body past a size limit (bytes, keys in one object, elements in one array).
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

// 503 service_unavailable: a deliberate unavailability (/readyz while migrations are pending).
export const notReady = (message: string, extra: Record<string, unknown> = {}) =>
  genericError(GenericErrorCode.Unavailable, message, extra);

// 503 shutting_down: the replica drains (SIGTERM) and takes no new request; another replica, or this one restarted, will.
export const shuttingDown = (retryAfterSeconds: number) =>
  genericError(
    GenericErrorCode.ShuttingDown,
    `this replica is shutting down; retry in ${retryAfterSeconds} s`,
    {},
    { 'retry-after': String(retryAfterSeconds), connection: 'close' },
  );
