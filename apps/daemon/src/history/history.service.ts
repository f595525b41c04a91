import { Inject, Injectable } from '@nestjs/common';

import { DEFAULT_HISTORY_LIMIT, HistoryResponse, SessionNoticesResponse } from '@app/contracts';

import { AuthenticatedActor, seesEveryProject } from '../auth/actor';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ProjectAccessService } from '../projects/project-access.service';
import {
  ChangeRecordRow,
  HistoryPageQueryDto,
  HistoryQueryDto,
  NoticesQueryDto,
  toChangeRecordResponse,
} from './dto/history.dto';
import { historySessionNotFound } from './history.errors';
import { HistoryFilter, HistoryRepository } from './history.repository';

const PRUNE_BATCH = 10_000;

@Injectable()
export class HistoryService {
  constructor(
    private readonly repository: HistoryRepository,
    private readonly access: ProjectAccessService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async ofItem(actor: AuthenticatedActor, ref: string, query: HistoryPageQueryDto): Promise<HistoryResponse> {
    const item = await this.access.resolveItem(actor, ref);
    const page = await this.page({
      projects: null,
      organizations: null,
      itemId: item.id,
      before: query.before,
      limit: query.limit ?? DEFAULT_HISTORY_LIMIT,
    });
    return { item_id: item.ref, ...page };
  }

  // Organization admins also read the organization's own records (memberships, credentials, machine approvals).
  async list(actor: AuthenticatedActor, query: HistoryQueryDto): Promise<HistoryResponse> {
    if (query.project) await this.access.assertProject(actor, query.project);
    const itemId = query.item ? (await this.access.resolveItem(actor, query.item)).id : undefined;
    const everything = seesEveryProject(actor);
    return this.page({
      projects: everything ? null : await this.access.visibleProjects(actor),
      organizations: everything
        ? null
        : (await this.repository.adminOrganizations(actor.id)).map((r) => r.organization_id),
      project: query.project,
      itemId,
      actor: query.actor,
      object: query.object,
      before: query.before,
      limit: query.limit ?? DEFAULT_HISTORY_LIMIT,
    });
  }

  async notices(actor: AuthenticatedActor, sessionId: number, query: NoticesQueryDto): Promise<SessionNoticesResponse> {
    const session = await this.repository.session(sessionId);
    if (!session || (session.actor_id !== actor.id && !seesEveryProject(actor)))
      throw historySessionNotFound(sessionId);
    const after = query.after ?? '0';
    const rows = await this.repository.notices(sessionId, session.created_at, after);
    const lapsed = await this.repository.lapsedClaims(sessionId);
    return {
      session_id: sessionId,
      notices: rows.map((row) => ({ kind: row.notice, ...toChangeRecordResponse(row) })),
      lapsed_claims: lapsed.map((c) => ({ item_id: c.item_ref, expired_at: c.expires_at.toISOString() })),
      last_id: rows.length > 0 ? rows[rows.length - 1].id : after,
    };
  }

  async prune(): Promise<number> {
    const days = this.config.historyRetentionDays;
    if (days <= 0) return 0;
    let removed = 0;
    for (;;) {
      const batch = await this.repository.prune(days, PRUNE_BATCH);
      removed += batch;
      if (batch < PRUNE_BATCH) return removed;
    }
  }

  private async page(filter: HistoryFilter): Promise<HistoryResponse> {
    const rows: ChangeRecordRow[] = await this.repository.page(filter);
    const more = rows.length > filter.limit;
    const shown = more ? rows.slice(0, filter.limit) : rows;
    return { changes: shown.map(toChangeRecordResponse), next_before: more ? shown[shown.length - 1].id : null };
  }
}
