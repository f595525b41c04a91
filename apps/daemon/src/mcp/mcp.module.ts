import { Module } from '@nestjs/common';

import { MachineAuthorizationModule } from '../machine-authorization/machine-authorization.module';
import { McpController } from './mcp.controller';
import { McpHttpService } from './mcp-http.service';

@Module({ imports: [MachineAuthorizationModule], controllers: [McpController], providers: [McpHttpService] })
export class McpModule {}
