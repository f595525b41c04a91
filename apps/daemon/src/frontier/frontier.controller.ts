import { Readable } from 'node:stream';

import { Controller, Get, Header, Headers, Param, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';

import { FRONTIER_DELTA_MEDIA_TYPE, FRONTIER_FULL_REASON_HEADER } from '@app/contracts';

import { AuthenticatedActor, CurrentActor } from '../auth/actor';
import { ExplainResponse, FrontierListQueryDto, FrontierListResponse, FrontierQueryDto } from './dto/frontier.dto';
import { FrontierReadQueryDto, FrontierWindowQueryDto } from './dto/frontier-read.dto';
import { FrontierService } from './read-path/frontier.service';

// If-None-Match (RFC 9110 §13.1.2): `*`, or a list of entity tags compared weakly (W/ ignored).
export function etagMatches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

@Controller('v1')
export class FrontierController {
  constructor(private readonly service: FrontierService) {}

  // Conditional on a strong ETag of the exact body; no-cache: caches must revalidate every time.
  @Get('charge/frontier')
  @Header('cache-control', 'no-cache')
  async frontier(
    @CurrentActor() actor: AuthenticatedActor,
    @Query() dto: FrontierReadQueryDto,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    if (dto.limit !== undefined) {
      // no ETag (it is not the answer), never a delta base
      const page = await this.service.frontierFirstItems(actor, dto, dto.limit);
      await reply.header('content-type', 'application/json; charset=utf-8').status(200).send(page);
      return;
    }
    const since = dto.since !== undefined ? await this.service.frontierSince(actor, dto, dto.since) : null;
    const { chunks, length, etag } = since?.serialized ?? (await this.service.frontierJson(actor, dto));
    void reply.header('etag', etag);
    const notModified =
      (ifNoneMatch !== undefined && etagMatches(ifNoneMatch, etag)) || (since !== null && since.outcome === null);
    if (since?.outcome && !notModified) {
      if ('delta' in since.outcome) {
        await reply.header('content-type', FRONTIER_DELTA_MEDIA_TYPE).status(200).send(since.outcome.delta);
        return;
      }
      void reply.header(FRONTIER_FULL_REASON_HEADER, since.outcome.full);
    }
    if (notModified) {
      await reply.status(304).send();
      return;
    }
    // after a write the body is mostly views of earlier answers' buffers: written one after another, never joined
    await reply
      .header('content-type', 'application/json; charset=utf-8')
      .header('content-length', length)
      .status(200)
      .send(chunks.length === 1 ? chunks[0] : Readable.from(chunks, { objectMode: false }));
  }

  // A window of one list of the answer, filtered and sorted (docs/api-frontier.md, "A window of the answer").
  @Get('charge/frontier/window')
  @Header('cache-control', 'no-cache')
  async window(
    @CurrentActor() actor: AuthenticatedActor,
    @Query() dto: FrontierWindowQueryDto,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const body = await this.service.frontierWindow(actor, dto);
    await reply.header('content-type', 'application/json; charset=utf-8').status(200).send(body);
  }

  @Get('frontier/list')
  list(@CurrentActor() actor: AuthenticatedActor, @Query() dto: FrontierListQueryDto): Promise<FrontierListResponse> {
    return this.service.list(actor, dto);
  }

  @Get('frontier/explain/:ref')
  explain(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('ref') ref: string,
    @Query() dto: FrontierQueryDto,
  ): Promise<ExplainResponse> {
    return this.service.explain(actor, ref, dto.wip_cap);
  }
}
