import { Module } from '@nestjs/common';

import { MachineAuthorizationModule } from '../machine-authorization/machine-authorization.module';
import { McpController } from './mcp.controller';
import { McpHttpService } from './mcp-http.service';
import { McpSessionsRepository } from './mcp-sessions.repository';
import { ProtectedResourceController } from './protected-resource.controller';

@Module({
  imports: [MachineAuthorizationModule],
  controllers: [McpController, ProtectedResourceController],
  providers: [McpHttpService, McpSessionsRepository],
})
export class McpModule {}
