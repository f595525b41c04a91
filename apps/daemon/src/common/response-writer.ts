import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

import { HttpException, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';

import type { ErrorBody } from '@app/contracts';

import { DATABASE_RETRY_AFTER_SECONDS, isDataException, isDatabaseUnavailable } from './database-outage';
import { databaseUnavailable as databaseUnavailableAfter, DomainError, GenericErrorCode } from './domain-error';

interface FastifyLikeError {
  statusCode?: number;
  code?: string;
  message?: string;
}

const FASTIFY_CODES: Record<string, { code: string; message?: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { code: GenericErrorCode.PayloadTooLarge, message: 'request body is too large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: GenericErrorCode.UnsupportedMediaType,
    message: 'content type must be application/json',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: GenericErrorCode.InvalidRequest },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: GenericErrorCode.InvalidRequest, message: 'request body is empty' },
  FST_ERR_CTP_INVALID_JSON_BODY: {
    code: GenericErrorCode.InvalidRequest,
    message: 'request body is not valid JSON',
  },
};

function statusCodeOf(status: number): string {
  switch (status) {
    case 400:
      return GenericErrorCode.InvalidRequest;
    case 401:
      return GenericErrorCode.Unauthorized;
    case 403:
      return GenericErrorCode.Forbidden;
    case 404:
      return GenericErrorCode.NotFound;
    case 409:
      return GenericErrorCode.Conflict;
    case 413:
      return GenericErrorCode.PayloadTooLarge;
    case 415:
      return GenericErrorCode.UnsupportedMediaType;
    case 503:
      return GenericErrorCode.Unavailable;
    default:
      return status >= 500 ? GenericErrorCode.InternalError : GenericErrorCode.InvalidRequest;
  }
}

export interface ErrorResponse {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
}

export const databaseUnavailable = (): DomainError => databaseUnavailableAfter(DATABASE_RETRY_AFTER_SECONDS);

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
  if (isDatabaseUnavailable(exception)) return toErrorResponse(databaseUnavailable());
  if (isDataException(exception)) {
    return {
      status: 400,
      body: {
        code: GenericErrorCode.InvalidRequest,
        message: 'a value in the request cannot be stored (out of range, or not valid text)',
      },
      headers: {},
    };
  }
  return { status: 500, body: { code: GenericErrorCode.InternalError, message: 'internal error' }, headers: {} };
}

const OUTAGE_LOG_INTERVAL_MS = 5000;
let lastOutageLog = 0;
let outageAnswers = 0;

// Failures of the server itself are logged once, with the stack; refusals of the request are not. An outage is one
// line every few seconds with the count of requests answered 503 meanwhile, not a stack per request.
export function logServerError(logger: Logger, status: number, exception: unknown): void {
  if (status < 500) return;
  if (status === 503 && isDatabaseUnavailable(exception)) {
    outageAnswers += 1;
    const now = Date.now();
    if (now - lastOutageLog < OUTAGE_LOG_INTERVAL_MS) return;
    lastOutageLog = now;
    const message = exception instanceof Error ? exception.message : String(exception);
    logger.warn(`database unavailable (${outageAnswers} requests answered 503 so far): ${message}`);
    return;
  }
  // A deliberate 503 (readiness while the database is away, a documented unavailability) is an answer, not a fault.
  if ((exception instanceof DomainError || exception instanceof HttpException) && status === 503) return;
  const err = exception instanceof Error ? exception : new Error(String(exception));
  logger.error({ err: { type: err.name, message: err.message, stack: err.stack } }, 'request failed');
}

type ErrorTarget = FastifyReply | ServerResponse;

function isRawResponse(target: ErrorTarget): target is ServerResponse {
  return typeof (target as ServerResponse).setHeader === 'function' && !('raw' in target);
}

export function writeErrorResponse(
  target: ErrorTarget,
  status: number,
  payload: Record<string, unknown> | string,
  headers: Record<string, string> = {},
): void {
  if (isRawResponse(target)) {
    if (target.headersSent) return;
    target.statusCode = status;
    for (const [name, value] of Object.entries(headers)) target.setHeader(name, value);
    if (typeof payload === 'string') {
      target.end(payload);
      return;
    }
    target.setHeader('content-type', 'application/json; charset=utf-8');
    target.end(JSON.stringify(payload));
    return;
  }
  if (target.sent) return;
  for (const [name, value] of Object.entries(headers)) void target.header(name, value);
  void target.status(status).send(payload);
}

// Node's HTTP parser refuses these before Fastify sees them; answer with the usual { code, message } body.
export function writeClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const message =
    status === 431
      ? 'request headers (or the URL) are too large'
      : status === 408
        ? 'the request took too long to arrive'
        : 'malformed HTTP request';
  const body = JSON.stringify({ code: GenericErrorCode.InvalidRequest, message });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nconnection: close\r\n` +
      `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
