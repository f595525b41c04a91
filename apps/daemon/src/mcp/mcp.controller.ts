import { Controller, Delete, Get, Logger, Post, Req, Res, UseFilters } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';

import { AuthenticatedActor, CurrentActor } from '../auth/actor';
import { logServerError, toErrorResponse, writeErrorResponse } from '../common/response-writer';
import { loopbackUrl, McpHttpService } from './mcp-http.service';
import { McpUnauthorizedFilter } from './protected-resource.controller';
import { Writes } from '../rulebook/writes.decorator';

// The SDK's transport writes the Node response itself, so the reply is hijacked and no interceptor shapes it. The
// bearer guard runs first; a 401 names the protected-resource metadata (RFC 9728).
@UseFilters(McpUnauthorizedFilter)
@Controller('mcp')
export class McpController {
  private readonly logger = new Logger('mcp');

  constructor(private readonly service: McpHttpService) {}

  @Writes('role')
  @Post()
  post(
    @CurrentActor() actor: AuthenticatedActor,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.handle(actor, request, reply);
  }

  @Get()
  get(
    @CurrentActor() actor: AuthenticatedActor,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.handle(actor, request, reply);
  }

  @Writes('role')
  @Delete()
  delete(
    @CurrentActor() actor: AuthenticatedActor,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.handle(actor, request, reply);
  }

  private async handle(actor: AuthenticatedActor, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    reply.hijack();
    const res = reply.raw;
    try {
      await this.service.handle(actor, request.raw, res, request.body, loopbackUrl(request.raw));
    } catch (err) {
      // A refusal (a cap, the origin) is thrown before anything is written: the daemon's usual coded answer.
      const { status, body, headers } = toErrorResponse(err);
      logServerError(this.logger, status, err);
      if (!res.headersSent) writeErrorResponse(res, status, body, headers);
      else res.end();
    }
  }
}
