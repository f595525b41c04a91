import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';

import { MachineAuthorizationErrorCode } from '@app/contracts';

import { GENERIC_ERROR_CODES } from '../common/domain-error';
import { logServerError, toErrorResponse, writeErrorResponse } from '../common/response-writer';

const HOSTED_PATH = /^\/api\/orgs\//;
const POLL_PATH = /\/machine\/authorizations\/token\/?(\?|$)/;

const TO_CONTRACT: Record<string, string> = {
  [GENERIC_ERROR_CODES.validationFailed]: MachineAuthorizationErrorCode.InvalidRequest,
  [GENERIC_ERROR_CODES.conflict]: MachineAuthorizationErrorCode.InvalidRequest,
  [GENERIC_ERROR_CODES.unavailable]: MachineAuthorizationErrorCode.InternalError,
};

export interface MachineAuthorizationErrorAnswer {
  status: number;
  payload: Record<string, string>;
  headers: Record<string, string>;
}

// { code, message? } on self-host paths, { code, detail? } on hosted ones. An outage on the poll is the contract's
// retryable 503 machine_credential_unavailable: the approval is intact.
export function machineAuthorizationErrorAnswer(
  exception: unknown,
  url: string,
  hosted = HOSTED_PATH.test(url),
): MachineAuthorizationErrorAnswer {
  const { status, body, headers } = toErrorResponse(exception);
  let code = TO_CONTRACT[String(body.code)] ?? String(body.code);
  if (code === GENERIC_ERROR_CODES.databaseUnavailable && POLL_PATH.test(url)) {
    code = MachineAuthorizationErrorCode.MachineCredentialUnavailable;
  }
  const text = typeof body.message === 'string' ? body.message : undefined;
  const payload: Record<string, string> = { code };
  if (text !== undefined) payload[hosted ? 'detail' : 'message'] = text;
  return { status, payload, headers: { ...headers, 'cache-control': 'no-store' } };
}

@Catch()
export class MachineAuthorizationExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('MachineAuthorization');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest>();
    const answer = machineAuthorizationErrorAnswer(exception, request.url);
    logServerError(this.logger, answer.status, exception);
    writeErrorResponse(reply, answer.status, answer.payload, answer.headers);
  }
}
