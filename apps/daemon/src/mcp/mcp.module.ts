import { Module } from '@nestjs/common';

import { McpController } from './mcp.controller';
import { McpHttpService } from './mcp-http.service';

@Module({ controllers: [McpController], providers: [McpHttpService] })
export class McpModule {}
