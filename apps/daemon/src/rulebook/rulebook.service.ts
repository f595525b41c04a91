import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { decideClaim, ItemWriteKind } from '@app/core';

import { AuthenticatedActor, seesEveryProject } from '../auth/actor';
import { currentWrite, notePassed } from '../database/write-context';
import { forceNotAllowed, itemClaimedElsewhere } from './rulebook.errors';
import type { ClaimHolderJson } from '../database/backlog-sql';
import { holderOf, RulebookRepository } from './rulebook.repository';

export interface ItemUnderWrite {
  id: number;
  ref: string;
  project: string;
}

// The decisions are libs/core's pure functions; this gathers their inputs in the write's transaction.
@Injectable()
export class RulebookService {
  constructor(private readonly repository: RulebookRepository) {}

  // The claim rule: doing the work on a claimed item is the holder's; triage passes and reaches the holder through
  // the record. A forced write by a project admin releases the claim and is recorded as forced.
  async checkClaim(
    manager: EntityManager,
    actor: AuthenticatedActor,
    item: ItemUnderWrite,
    kind: ItemWriteKind,
    force = false,
    locked?: { claim_holder: ClaimHolderJson | null },
  ): Promise<void> {
    // `locked`: the claim already read under its lock with the item's (ItemsRepository.lockWithClaim)
    const holder = locked ? holderOf(locked.claim_holder) : await this.repository.holder(manager, item.id);
    const context = currentWrite();
    const writer = { actorId: actor.id, sessionId: context?.writer.session_id ?? null };
    const isProjectAdmin =
      force &&
      holder !== null &&
      (seesEveryProject(actor) || (await this.repository.isOrganizationAdmin(manager, actor.id, item.project)));
    const decision = decideClaim({ kind, writer, holder, force, isProjectAdmin });
    notePassed('claim');
    if (!decision.allow) {
      throw decision.code === 'item_claimed_elsewhere'
        ? itemClaimedElsewhere(item.ref, decision.holder)
        : forceNotAllowed(item.ref, decision.holder);
    }
    if (decision.forced) {
      if (context) await this.repository.nameWriter(manager, { ...context.writer, forced: true });
      await this.repository.releaseClaim(manager, item.id);
    }
  }

  releaseFinished(manager: EntityManager, itemId: number): Promise<unknown> {
    return this.repository.releaseClaim(manager, itemId);
  }
}
