import { Controller, Delete, Get, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';

import { AuthenticatedActor, CurrentActor } from '../auth/actor';
import { loopbackUrl, McpHttpService } from './mcp-http.service';

// POST/GET/DELETE /mcp: the MCP server over Streamable HTTP (issue 29), for harnesses that connect to a URL. The
// global bearer guard runs first (no token: 401 like every route); then the SDK's transport writes the Node
// response itself, so Fastify is told the reply is handled (hijack) and no interceptor shapes it.
@Controller('mcp')
export class McpController {
  constructor(private readonly service: McpHttpService) {}

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
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ code: 'internal_error', message: (err as Error).message }));
      } else {
        res.end();
      }
    }
  }
}
