import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';

import { AuthenticatedActor, CurrentActor } from '../auth/actor';
import { MetricsScope } from '../auth/public.decorator';
import { MetricsService } from './metrics.service';

@Controller('metrics')
export class MetricsController {
  constructor(private readonly service: MetricsService) {}

  // The text content type is set only on the answer itself: a refusal stays the usual JSON error body.
  @MetricsScope()
  @Get()
  async scrape(
    @CurrentActor() actor: AuthenticatedActor,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const text = await this.service.scrape(actor);
    void reply.header('content-type', this.service.contentType).header('cache-control', 'no-store');
    return text;
  }
}
