import { Injectable } from '@nestjs/common';

import { AuthenticatedActor } from '../auth/actor';
import { ProjectAccessService } from '../projects/project-access.service';
import {
  AddDispositionDto,
  AddOuroborosDto,
  AddVerdictDto,
  DispositionWire,
  OuroborosQueryDto,
  OuroborosWire,
  VerdictWire,
} from './dto/records.dto';
import { dispositionExists, itemRequired, ouroborosEntryNotFound, verdictNotFound } from './records.errors';
import { RecordsRepository } from './records.repository';

// Verdicts and dispositions are keyed by the item's public ref (the spec's text column), stored canonical.
@Injectable()
export class RecordsService {
  constructor(
    private readonly repository: RecordsRepository,
    private readonly access: ProjectAccessService,
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

  async verdicts(actor: AuthenticatedActor, ref?: string): Promise<{ verdicts: VerdictWire[] }> {
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

  async dispositions(actor: AuthenticatedActor, ref?: string): Promise<{ dispositions: DispositionWire[] }> {
    return { dispositions: await this.repository.dispositions(await this.scope(actor, ref)) };
  }

  // One item, or (admins) everything; others see the records of one item at a time.
  private async scope(actor: AuthenticatedActor, ref?: string): Promise<string[] | null> {
    if (ref !== undefined) return [(await this.access.resolveItem(actor, ref)).ref];
    if (!actor.isAdmin) throw itemRequired();
    return null;
  }

  addOuroboros(dto: AddOuroborosDto): Promise<OuroborosWire | null> {
    return this.repository.insertOuroboros({
      timestamp: dto.timestamp ?? null,
      agent: dto.agent,
      context: dto.context ?? null,
      category: dto.category,
      body: dto.body,
    });
  }

  async ouroboros(query: OuroborosQueryDto): Promise<{ entries: OuroborosWire[] }> {
    return {
      entries: await this.repository.ouroboros({
        agent: query.agent,
        category: query.category,
        reviewed: query.reviewed === undefined ? undefined : Number(query.reviewed),
        archived: query.archived === undefined ? undefined : Number(query.archived),
        limit: query.limit ?? 100,
      }),
    };
  }

  async markOuroboros(id: number, column: 'reviewed_at' | 'archived_at'): Promise<OuroborosWire> {
    if (!(await this.repository.markOuroboros(id, column))) {
      throw ouroborosEntryNotFound(id);
    }
    return (await this.repository.ouroborosEntry(id))!;
  }
}
