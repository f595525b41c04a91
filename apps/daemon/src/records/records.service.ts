import { Injectable } from '@nestjs/common';

import type {
  DispositionListResponse,
  DispositionWire,
  OuroborosEntryWire,
  OuroborosListResponse,
  VerdictListResponse,
  VerdictWire,
} from '@app/contracts';

import { AuthenticatedActor } from '../auth/actor';
import { ProjectAccessService } from '../projects/project-access.service';
import { ProjectsService } from '../projects/projects.service';
import { AddDispositionDto, AddOuroborosDto, AddVerdictDto, OuroborosQueryDto } from './dto/records.dto';
import {
  dispositionExists,
  itemRequired,
  organizationMembershipRequired,
  ouroborosEntryNotFound,
  verdictNotFound,
} from './records.errors';
import { RecordFilter, RecordsRepository } from './records.repository';

// Verdicts and dispositions are keyed by the item's public ref (the spec's text column), stored canonical.
@Injectable()
export class RecordsService {
  constructor(
    private readonly repository: RecordsRepository,
    private readonly access: ProjectAccessService,
    private readonly projects: ProjectsService,
  ) {}

  async addVerdict(actor: AuthenticatedActor, dto: AddVerdictDto): Promise<VerdictWire> {
    const item = await this.access.resolveItem(actor, dto.item);
    return this.repository.insertVerdict({
      item: item.ref,
      transition: dto.transition,
      worker: dto.worker,
      verdict: dto.verdict,
      caveats: dto.caveats ?? null,
      attempt: dto.attempt ?? 1,
    });
  }

  async verdicts(actor: AuthenticatedActor, ref?: string): Promise<VerdictListResponse> {
    return { verdicts: await this.repository.verdicts(await this.scope(actor, ref)) };
  }

  async addDisposition(actor: AuthenticatedActor, dto: AddDispositionDto): Promise<DispositionWire> {
    const item = await this.access.resolveItem(actor, dto.item);
    if (dto.verdict_id !== undefined) {
      const verdictItem = await this.repository.verdictItem(dto.verdict_id);
      if (verdictItem !== item.ref) {
        throw verdictNotFound(dto.verdict_id, item.ref);
      }
    }
    const attempt = dto.attempt ?? 1;
    const row = await this.repository.insertDisposition({
      item: item.ref,
      transition: dto.transition,
      attempt,
      caveat_num: dto.caveat_num,
      caveat_text: dto.caveat_text,
      disposition: dto.disposition,
      resolution_details: dto.resolution_details ?? null,
      verdict_id: dto.verdict_id ?? null,
    });
    if (!row) {
      throw dispositionExists(dto.caveat_num, item.ref, dto.transition, attempt);
    }
    return row;
  }

  async dispositions(actor: AuthenticatedActor, ref?: string): Promise<DispositionListResponse> {
    return { dispositions: await this.repository.dispositions(await this.scope(actor, ref)) };
  }

  // Admins list every item they see (within the request's confinement); others one item at a time.
  private async scope(actor: AuthenticatedActor, ref?: string): Promise<RecordFilter> {
    if (ref !== undefined) return { items: [(await this.access.resolveItem(actor, ref)).ref], prefixes: null };
    if (!actor.isAdmin) throw itemRequired();
    return { items: null, prefixes: await this.access.visiblePrefixes(actor) };
  }

  async addOuroboros(actor: AuthenticatedActor, dto: AddOuroborosDto): Promise<OuroborosEntryWire> {
    const organizationId = await this.projects.organizationFor(actor);
    if (organizationId === null) throw organizationMembershipRequired();
    return this.repository.insertOuroboros({
      organizationId,
      timestamp: dto.timestamp ?? null,
      agent: dto.agent,
      context: dto.context ?? null,
      category: dto.category,
      body: dto.body,
    });
  }

  async ouroboros(actor: AuthenticatedActor, query: OuroborosQueryDto): Promise<OuroborosListResponse> {
    return {
      entries: await this.repository.ouroboros(actor, {
        agent: query.agent,
        category: query.category,
        reviewed: query.reviewed === undefined ? undefined : Number(query.reviewed),
        archived: query.archived === undefined ? undefined : Number(query.archived),
        limit: query.limit ?? 100,
      }),
    };
  }

  async markOuroboros(
    actor: AuthenticatedActor,
    id: number,
    column: 'reviewed_at' | 'archived_at',
  ): Promise<OuroborosEntryWire> {
    if (!(await this.repository.markOuroboros(actor, id, column))) {
      throw ouroborosEntryNotFound(id);
    }
    return (await this.repository.ouroborosEntry(id))!;
  }
}
