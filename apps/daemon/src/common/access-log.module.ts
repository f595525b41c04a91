import { Module } from '@nestjs/common';

import { AccessLogService } from './access-log.service';

// The access log's Fastify hooks (route pattern, actor, error code, X-Request-Id): see logging.ts.
@Module({ providers: [AccessLogService] })
export class AccessLogModule {}
