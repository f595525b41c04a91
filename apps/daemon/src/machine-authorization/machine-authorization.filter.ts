import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';

import { MachineAuthorizationErrorCode } from '@app/contracts';

import { GENERIC_ERROR_CODES } from '../common/domain-error';
import { logServerError, toErrorResponse } from '../common/global-exception.filter';

const HOSTED_PATH = /^\/api\/orgs\//;

// Codes outside the contract's refusal model are folded into its nearest contract code.
const TO_CONTRACT: Record<string, string> = {
  [GENERIC_ERROR_CODES.validationFailed]: MachineAuthorizationErrorCode.InvalidRequest,
  [GENERIC_ERROR_CODES.conflict]: MachineAuthorizationErrorCode.InvalidRequest,
  [GENERIC_ERROR_CODES.unavailable]: MachineAuthorizationErrorCode.InternalError,
};

// The machine-authorization routes answer with the contract's models: { code, message? } on self-host paths and
// { code, detail? } on hosted ones (/api/orgs/<slug>/...), never anything else.
@Catch()
export class MachineAuthorizationExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('MachineAuthorization');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest>();
    const { status, body, headers } = toErrorResponse(exception);
    logServerError(this.logger, status, exception);
    const code = TO_CONTRACT[String(body.code)] ?? String(body.code);
    const text = typeof body.message === 'string' ? body.message : undefined;
    const hosted = HOSTED_PATH.test(request.url);
    const payload: Record<string, string> = { code };
    if (text !== undefined) payload[hosted ? 'detail' : 'message'] = text;
    for (const [name, value] of Object.entries(headers)) void reply.header(name, value);
    void reply.header('cache-control', 'no-store');
    void reply.status(status).send(payload);
  }
}
