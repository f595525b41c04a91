import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';

import { DomainError, GENERIC_ERROR_CODES } from './domain-error';

interface FastifyLikeError {
  statusCode?: number;
  code?: string;
  message?: string;
}

const FASTIFY_CODES: Record<string, { code: string; message?: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { code: GENERIC_ERROR_CODES.payloadTooLarge, message: 'request body is too large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: GENERIC_ERROR_CODES.unsupportedMediaType,
    message: 'content type must be application/json',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: GENERIC_ERROR_CODES.invalidRequest },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: GENERIC_ERROR_CODES.invalidRequest, message: 'request body is empty' },
  FST_ERR_CTP_INVALID_JSON_BODY: {
    code: GENERIC_ERROR_CODES.invalidRequest,
    message: 'request body is not valid JSON',
  },
};

function statusCodeOf(status: number): string {
  switch (status) {
    case 400:
      return GENERIC_ERROR_CODES.invalidRequest;
    case 401:
      return GENERIC_ERROR_CODES.unauthorized;
    case 403:
      return GENERIC_ERROR_CODES.forbidden;
    case 404:
      return GENERIC_ERROR_CODES.notFound;
    case 409:
      return GENERIC_ERROR_CODES.conflict;
    case 413:
      return GENERIC_ERROR_CODES.payloadTooLarge;
    case 415:
      return GENERIC_ERROR_CODES.unsupportedMediaType;
    case 503:
      return GENERIC_ERROR_CODES.unavailable;
    default:
      return status >= 500 ? GENERIC_ERROR_CODES.internalError : GENERIC_ERROR_CODES.invalidRequest;
  }
}

export interface ErrorResponse {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

// Shapes any thrown value into { code, message, ...extra }; anything unknown is a 500 with a fixed message.
export function toErrorResponse(exception: unknown): ErrorResponse {
  if (exception instanceof DomainError) {
    return {
      status: exception.status,
      body: { code: exception.code, message: exception.message, ...exception.extra },
      headers: exception.headers,
    };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const response = exception.getResponse();
    const message =
      typeof response === 'object' &&
      response !== null &&
      typeof (response as { message?: unknown }).message === 'string'
        ? (response as { message: string }).message
        : exception.message;
    return { status, body: { code: statusCodeOf(status), message }, headers: {} };
  }
  const err = (exception ?? {}) as FastifyLikeError;
  if (typeof err.code === 'string' && FASTIFY_CODES[err.code]) {
    const mapped = FASTIFY_CODES[err.code];
    const status = err.statusCode ?? 400;
    return {
      status,
      body: { code: mapped.code, message: mapped.message ?? err.message ?? 'bad request' },
      headers: {},
    };
  }
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    // Fastify's own client errors (e.g. a __proto__ key refused by its JSON parser) carry no secrets.
    return {
      status: err.statusCode,
      body: { code: statusCodeOf(err.statusCode), message: err.message ?? 'bad request' },
      headers: {},
    };
  }
  return { status: 500, body: { code: GENERIC_ERROR_CODES.internalError, message: 'internal error' }, headers: {} };
}

// Failures of the server itself are logged once, with the stack; refusals of the request are not.
export function logServerError(logger: Logger, status: number, exception: unknown): void {
  if (status < 500) return;
  const err = exception instanceof Error ? exception : new Error(String(exception));
  logger.error({ err: { type: err.name, message: err.message, stack: err.stack } }, 'request failed');
}

@Catch()
export class GlobalExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('GlobalExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const { status, body, headers } = toErrorResponse(exception);
    logServerError(this.logger, status, exception);
    for (const [name, value] of Object.entries(headers)) void reply.header(name, value);
    void reply.status(status).send(body);
  }
}
