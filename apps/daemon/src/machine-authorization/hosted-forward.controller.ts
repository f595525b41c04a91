import { All, Controller, Get, Inject, Param, Query, Req, Res } from '@nestjs/common';
import type { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import { AuthenticatedActor, CurrentActor } from '../auth/actor';
import { RequestScopeService, SCOPE_HEADER } from '../auth/request-scope.service';
import { InjectHttpAdapterHost } from '../common/inject-http-adapter-host';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { EventsStreamQueryDto } from '../events/dto/events.dto';
import { EventsService } from '../events/events.service';
import { forwardedUrl } from './forwarded-url';
import { maError, MaCode } from './machine-authorization.errors';
import { MachineAuthorizationRepository } from './machine-authorization.repository';
import { Writes } from '../rulebook/writes.decorator';

const DROPPED_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding']);

// {origin}/api/orgs/<slug>: every /v1 function, for callers of that organization only.
@Controller()
export class HostedForwardController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectHttpAdapterHost() private readonly adapterHost: HttpAdapterHost,
    private readonly repository: MachineAuthorizationRepository,
    private readonly scope: RequestScopeService,
    private readonly events: EventsService,
  ) {}

  // inject waits for the whole response, so the live stream is served here, confined like a forwarded request.
  @Get('api/orgs/:slug/v1/events/stream')
  async stream(
    @Param('slug') slug: string,
    @CurrentActor() actor: AuthenticatedActor,
    @Query() dto: EventsStreamQueryDto,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    actor.scopeOrganizationId = await this.assertMember(slug, actor);
    return this.events.openStream(actor, dto, req, reply);
  }

  // the /v1 route it reaches names its own rules; the forward itself confines the request to the organization
  @Writes('scope')
  @All('api/orgs/:slug/v1/*')
  async forward(
    @Param('slug') slug: string,
    @CurrentActor() actor: AuthenticatedActor,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const organizationId = await this.assertMember(slug, actor);
    const url = forwardedUrl(req.url);
    if (url === null) {
      throw maError(
        MaCode.NotFound,
        'no such route: a path under /api/orgs/<slug>/v1/ reaches /v1 routes only, and may not hold . or .. segments',
      );
    }
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([name]) => !DROPPED_HEADERS.has(name) && !name.startsWith('x-forwarded-')),
    ) as Record<string, string>;
    // Replaces whatever the caller sent under that name (RequestScopeService).
    headers[SCOPE_HEADER] = this.scope.header(organizationId);
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const res = await fastify.inject({
      method: req.method as 'GET',
      url,
      headers,
      payload: req.body === undefined ? undefined : typeof req.body === 'string' ? req.body : JSON.stringify(req.body),
    });
    for (const [name, value] of Object.entries(res.headers)) {
      if (!DROPPED_HEADERS.has(name) && value !== undefined) void reply.header(name, value);
    }
    await reply.status(res.statusCode).send(res.rawPayload);
  }

  private async assertMember(slug: string, actor: AuthenticatedActor): Promise<number> {
    if (this.config.mode !== 'hosted')
      throw maError(MaCode.NotFound, 'this self-hosted server has no organization paths');
    const organization = await this.repository.organizationBySlug(slug);
    if (!organization) throw maError(MaCode.NotFound, 'no such organization');
    // A credential bound to an organization (a machine's, or a token one minted) acts only there.
    if (actor.organizationId !== null) {
      if (actor.organizationId === organization.id) return organization.id;
    } else {
      const membership = await this.repository.membership(actor.id, organization.id);
      if (actor.isAdmin || membership?.status === 'active') return organization.id;
    }
    throw maError(
      MaCode.OrganizationMembershipRequired,
      `this credential does not belong to ${slug}; connect to it with svc connect --org ${slug}`,
    );
  }
}
