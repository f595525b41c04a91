export const GENERIC_ERROR_CODES = {
  validationFailed: 'validation_failed',
  invalidRequest: 'invalid_request',
  unauthorized: 'unauthorized',
  forbidden: 'forbidden',
  notFound: 'not_found',
  conflict: 'conflict',
  payloadTooLarge: 'payload_too_large',
  unsupportedMediaType: 'unsupported_media_type',
  internalError: 'internal_error',
  unavailable: 'service_unavailable',
  // The database is down, restarting or unreachable: retry after the Retry-After delay.
  databaseUnavailable: 'database_unavailable',
} as const;

// Every refusal the daemon answers with: a wire code from the spec (or a documented one), a message for people,
// the HTTP status, optional extra body fields (e.g. `projects` for project_required) and optional headers.
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

export const notFound = (what: string, extra: Record<string, unknown> = {}) =>
  new DomainError(GENERIC_ERROR_CODES.notFound, `${what} not found`, 404, extra);

export const invalidRequest = (message: string, extra: Record<string, unknown> = {}) =>
  new DomainError(GENERIC_ERROR_CODES.invalidRequest, message, 400, extra);
