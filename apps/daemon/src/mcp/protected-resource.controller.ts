import type { IncomingMessage } from 'node:http';

import { ArgumentsHost, Catch, Controller, ExceptionFilter, Get, Injectable, Logger, Req } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';

import { Public } from '../auth/public.decorator';
import { logServerError, toErrorResponse, writeErrorResponse } from '../common/response-writer';
import { RequestIdentityService } from '../machine-authorization/request-identity';

export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

// RFC 9728. svc is not an OAuth authorization server (credentials come from `svc connect` or `svc tokens create`),
// so no authorization_servers; svc_credentials says how to get one.
export interface ProtectedResourceMetadata {
  resource: string;
  resource_name: string;
  bearer_methods_supported: ['header'];
  svc_credentials: string;
}

export function protectedResourceMetadata(origin: string, path: '' | '/mcp'): ProtectedResourceMetadata {
  return {
    resource: `${origin}${path}`,
    resource_name: path === '/mcp' ? 'svc MCP server' : 'svc',
    bearer_methods_supported: ['header'],
    svc_credentials:
      `run \`svc connect ${origin}\` (a machine credential, approved in the browser) or \`svc tokens create\` ` +
      '(an API token), then send it as Authorization: Bearer <credential>',
  };
}

@Public()
@Controller('.well-known/oauth-protected-resource')
export class ProtectedResourceController {
  constructor(private readonly identity: RequestIdentityService) {}

  @Get()
  server(@Req() request: FastifyRequest): ProtectedResourceMetadata {
    return protectedResourceMetadata(this.identity.describe(request.raw).origin, '');
  }

  @Get('mcp')
  mcp(@Req() request: FastifyRequest): ProtectedResourceMetadata {
    return protectedResourceMetadata(this.identity.describe(request.raw).origin, '/mcp');
  }
}

// RFC 9728 §5.1: the 401's WWW-Authenticate names resource_metadata, so a client learns how to get a credential.
@Catch()
@Injectable()
export class McpUnauthorizedFilter implements ExceptionFilter {
  private readonly logger = new Logger('mcp');

  constructor(private readonly identity: RequestIdentityService) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest>();
    const { status, body, headers } = toErrorResponse(exception);
    logServerError(this.logger, status, exception);
    if (status === 401) headers['www-authenticate'] = wwwAuthenticate(this.identity, request.raw);
    writeErrorResponse(reply, status, body, headers);
  }
}

export function wwwAuthenticate(identity: RequestIdentityService, req: IncomingMessage): string {
  const origin = identity.describe(req).origin;
  return `Bearer resource_metadata="${origin}${PROTECTED_RESOURCE_PATH}/mcp"`;
}
