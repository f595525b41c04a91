import { HttpStatus } from '@nestjs/common';

import { errorFactory, ErrorStatusTable } from '../common/domain-error';

export enum McpErrorCode {
  McpSessionLimitReached = 'mcp_session_limit_reached',
  McpStreamLimitReached = 'mcp_stream_limit_reached',
  // a browser page of another origin called /mcp (DNS rebinding, a hostile page)
  McpOriginRefused = 'mcp_origin_refused',
}

export const MCP_ERROR_STATUS: ErrorStatusTable<McpErrorCode> = {
  [McpErrorCode.McpSessionLimitReached]: HttpStatus.TOO_MANY_REQUESTS,
  [McpErrorCode.McpStreamLimitReached]: HttpStatus.TOO_MANY_REQUESTS,
  [McpErrorCode.McpOriginRefused]: HttpStatus.FORBIDDEN,
};

const mcpError = errorFactory(MCP_ERROR_STATUS);

const whose = (who: 'actor' | 'address') => (who === 'actor' ? 'actor' : 'client address');

export const mcpSessionLimitReached = (who: 'actor' | 'address', limit: number, retryAfter: number) =>
  mcpError(
    McpErrorCode.McpSessionLimitReached,
    `at most ${limit} MCP sessions may be open at once for this ${whose(who)}; end one (DELETE /mcp) or retry in ${retryAfter} s`,
    { limit },
    { 'retry-after': String(retryAfter) },
  );

export const mcpStreamLimitReached = (who: 'actor' | 'address', limit: number, retryAfter: number) =>
  mcpError(
    McpErrorCode.McpStreamLimitReached,
    `at most ${limit} MCP streams (GET /mcp) may be open at once for this ${whose(who)}; close one or retry in ${retryAfter} s`,
    { limit },
    { 'retry-after': String(retryAfter) },
  );

export const mcpOriginRefused = (origin: string) =>
  mcpError(
    McpErrorCode.McpOriginRefused,
    `requests to /mcp from a web page of another origin are refused (Origin ${JSON.stringify(origin.slice(0, 200))}); ` +
      'only this server’s own origin, or a client that sends no Origin, may call it',
  );
