import { Inject, Injectable } from '@nestjs/common';

import {
  DEFAULT_SESSIONS_LIMIT,
  HeartbeatResponse,
  RegisterSessionResponse,
  ReleaseClaimResponse,
  SessionListResponse,
  SessionResponse,
} from '@app/contracts';
import { LANE_KEY_PREFIX, LanePolicy, resolveLane } from '@app/core';

import { AuthenticatedActor, isServerAdmin } from '../auth/actor';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { nameWriterSession } from '../database/write-context';
import { FrontierService } from '../frontier/read-path/frontier.service';
import { ProjectAccessService } from '../projects/project-access.service';
import {
  ClaimRow,
  ListSessionsQueryDto,
  RegisterSessionDto,
  SessionRow,
  toClaimResponse,
  toSessionResponse,
} from './dto/sessions.dto';
import { sessionEnded, sessionNotFound } from './sessions.errors';
import { SessionsRepository } from './sessions.repository';

// A project as the frontier's service resolves it (its repository is private to frontier/).
type ProjectRow = Awaited<ReturnType<FrontierService['resolveProject']>>;

export { sessionNotFound };

// The policy's own lane keys (what the projects API writes) over the stored policy.session_routing (the form
// seeded projects carry).
export function sessionRoutingOf(project: ProjectRow): LanePolicy {
  const policy: Record<string, unknown> = project.policy ?? {};
  const routing = policy.session_routing;
  const stored = typeof routing === 'object' && routing !== null && !Array.isArray(routing) ? routing : {};
  const own = Object.fromEntries(
    Object.entries(policy).filter(([key]) => key === 'lane_rules' || key.startsWith(LANE_KEY_PREFIX)),
  );
  return { ...stored, ...own };
}

@Injectable()
export class SessionsService {
  constructor(
    private readonly repository: SessionsRepository,
    private readonly frontier: FrontierService,
    private readonly access: ProjectAccessService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async register(actor: AuthenticatedActor, dto: RegisterSessionDto): Promise<RegisterSessionResponse> {
    const project = dto.project ? await this.frontier.resolveProject(actor, dto.project) : null;
    // With a project only its routing counts (then primary); the machine configuration is the no-project fallback.
    const resolution = resolveLane(
      { harness: dto.harness, model: dto.model },
      project ? sessionRoutingOf(project) : null,
      this.config.sessionRouting,
    );
    const row = await this.repository.create({
      actorId: actor.id,
      project: project?.id ?? null,
      harness: dto.harness,
      model: dto.model,
      lane: resolution.lane,
      label: dto.label ?? null,
    });
    return {
      ...toSessionResponse(row, []),
      lane_source: resolution.source,
      lane_scope: resolution.scope,
      lane_key: resolution.key,
    };
  }

  async owned(actor: AuthenticatedActor, id: number, { live = true } = {}): Promise<SessionRow> {
    const row = await this.repository.find(id);
    if (!row || (row.actor_id !== actor.id && !isServerAdmin(actor))) throw sessionNotFound(id);
    if (live && row.ended_at) throw sessionEnded(id);
    return row;
  }

  async list(actor: AuthenticatedActor, dto: ListSessionsQueryDto): Promise<SessionListResponse> {
    const project = dto.project ? (await this.frontier.resolveProject(actor, dto.project)).id : null;
    const rows = await this.repository.list({
      actorId: isServerAdmin(actor) ? null : actor.id,
      project,
      harness: dto.harness ?? null,
      state: dto.state ?? 'live',
      limit: dto.limit ?? DEFAULT_SESSIONS_LIMIT,
    });
    const claims = new Map<number, ClaimRow[]>();
    for (const claim of await this.repository.liveClaimsOf(rows.map((r) => r.id))) {
      claims.set(claim.session_id, [...(claims.get(claim.session_id) ?? []), claim]);
    }
    return { sessions: rows.map((row) => toSessionResponse(row, claims.get(row.id) ?? [])) };
  }

  async get(actor: AuthenticatedActor, id: number): Promise<SessionResponse> {
    const row = await this.owned(actor, id, { live: false });
    return toSessionResponse(row, await this.repository.liveClaims(id));
  }

  async heartbeat(actor: AuthenticatedActor, id: number): Promise<HeartbeatResponse> {
    await this.owned(actor, id);
    const renewed = await this.repository.heartbeat(id, this.config.claimTtlSeconds);
    return { session_id: id, renewed: renewed.map(toClaimResponse) };
  }

  async release(actor: AuthenticatedActor, id: number, ref: string): Promise<ReleaseClaimResponse> {
    const session = await this.owned(actor, id, { live: false });
    nameWriterSession(session.id, session.harness);
    const item = await this.access.resolveItem(actor, ref);
    return { session_id: id, item_id: item.ref, released: await this.repository.release(id, item.id) };
  }

  async end(actor: AuthenticatedActor, id: number): Promise<SessionResponse> {
    const session = await this.owned(actor, id, { live: false });
    nameWriterSession(session.id, session.harness);
    return toSessionResponse(await this.repository.end(id), []);
  }
}
