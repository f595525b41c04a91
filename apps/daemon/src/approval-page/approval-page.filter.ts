import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';

import { logServerError, toErrorResponse } from '../common/global-exception.filter';
import { errorPage } from './approval-page.html';
import { PAGE_HEADERS } from './approval-page.render';
import { ApprovalPageService } from './approval-page.service';

@Catch()
export class ApprovalPageExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('ApprovalPage');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const { status, body, headers } = toErrorResponse(exception);
    logServerError(this.logger, status, exception);
    for (const [name, value] of Object.entries({ ...PAGE_HEADERS, ...headers })) void reply.header(name, value);
    void reply
      .status(status)
      .send(
        errorPage(
          ApprovalPageService.errorContext(request),
          status,
          String(body.code),
          String(body.message ?? 'refused'),
        ),
      );
  }
}
