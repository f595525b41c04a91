import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';

import { logServerError, toErrorResponse, writeErrorResponse } from './response-writer';

export type { ErrorResponse } from './response-writer';
export { logServerError, toErrorResponse } from './response-writer';

@Catch()
export class GlobalExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('GlobalExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const { status, body, headers } = toErrorResponse(exception);
    logServerError(this.logger, status, exception);
    writeErrorResponse(reply, status, body, headers);
  }
}
