import { Injectable, Logger } from '@nestjs/common';

import { DbClaimResponse } from '@app/contracts';
import {
  DbClaimSummary,
  negativeClaim,
  readClaim,
  serializeStoredClaim,
  splitClaim,
  StoredDbClaim,
  summarizeClaim,
  validateDbClaimPayload,
} from '@app/core';

import { AuthenticatedActor } from '../auth/actor';
import { EventsService } from '../events/events.service';
import { RulebookService } from '../rulebook/rulebook.service';
import { ProjectAccessService } from '../projects/project-access.service';
import { itemNotFound, ResolvedRef } from '../refs/refs.service';
import { dbClaimRefused } from './db-claims.errors';
import { ClaimReplacement, DbClaimsRepository, LockedClaim, StoredClaimTexts } from './db-claims.repository';
import { DbClaimAmendQueryDto, toDbClaimResponse } from './dto/db-claims.dto';
import { validateNegativeClaimRequest } from './negative-claim-request';

export const DB_CLAIM_AMENDED_EVENT = 'DbClaimAmended';

// A type alias, not an interface, so it fits the events record's Record<string, unknown> payload.
export type DbClaimAmendedPayload = {
  item_id: string;
  previous: DbClaimSummary;
  new: DbClaimSummary;
  actor: { id: number; name: string };
  session: number | null;
  reason: string | null;
};

@Injectable()
export class DbClaimsService {
  private readonly logger = new Logger(DbClaimsService.name);

  constructor(
    private readonly repository: DbClaimsRepository,
    private readonly access: ProjectAccessService,
    private readonly events: EventsService,
    private readonly rulebook: RulebookService,
  ) {}

  async get(actor: AuthenticatedActor, ref: string): Promise<DbClaimResponse> {
    const item = await this.access.resolveItem(actor, ref);
    const stored = await this.repository.findClaim(item.id);
    if (stored === null) throw itemNotFound(ref);
    return toDbClaimResponse(item.ref, readClaim(stored.profileText, stored.attestationText), stored);
  }

  async amend(
    actor: AuthenticatedActor,
    ref: string,
    body: unknown,
    query: DbClaimAmendQueryDto,
  ): Promise<DbClaimResponse> {
    const validation = validateDbClaimPayload(body);
    if (!validation.ok) throw dbClaimRefused(validation.errors);
    const { claim } = validation;
    return this.replace(actor, ref, query.session_id ?? null, query.reason ?? null, query.force === 'true', (locked) =>
      splitClaim(claim, { now: locked.now, previousAttestation: locked.attestationText }),
    );
  }

  async amendNegative(
    actor: AuthenticatedActor,
    ref: string,
    body: unknown,
    query: DbClaimAmendQueryDto,
  ): Promise<DbClaimResponse> {
    const validation = validateNegativeClaimRequest(body);
    if (!validation.ok) throw dbClaimRefused(validation.errors);
    const { reason } = validation.request;
    return this.replace(actor, ref, query.session_id ?? null, reason, query.force === 'true', (locked) =>
      negativeClaim(reason, locked.now, locked.attestationText),
    );
  }

  private async replace(
    actor: AuthenticatedActor,
    ref: string,
    sessionId: number | null,
    reason: string | null,
    force: boolean,
    build: (locked: LockedClaim) => StoredDbClaim,
  ): Promise<DbClaimResponse> {
    const item = await this.access.resolveItem(actor, ref);
    const replaced = await this.repository.replaceClaim(
      item.id,
      (locked) => serializeStoredClaim(build(locked)),
      (manager) => this.rulebook.checkClaim(manager, actor, item, 'db_claim', force),
    );
    if (replaced === null) throw itemNotFound(ref);
    const reading = readClaim(replaced.current.profileText, replaced.current.attestationText);
    await this.recordAmended(actor, item, replaced, sessionId, reason);
    return toDbClaimResponse(item.ref, reading, replaced.current);
  }

  // After commit and best-effort: the amendment stands whatever happens to its telemetry.
  private async recordAmended(
    actor: AuthenticatedActor,
    item: ResolvedRef,
    replaced: ClaimReplacement,
    sessionId: number | null,
    reason: string | null,
  ): Promise<void> {
    try {
      const payload: DbClaimAmendedPayload = {
        item_id: item.ref,
        previous: summarize(replaced.previous),
        new: summarize(replaced.current),
        actor: { id: actor.id, name: actor.name },
        session: sessionId,
        reason,
      };
      await this.events.recordBestEffort({
        name: DB_CLAIM_AMENDED_EVENT,
        kind: 'telemetry',
        project: item.project,
        itemRef: item.ref,
        actorId: actor.id,
        sessionId,
        payload,
      });
    } catch (err) {
      this.logger.warn(`${DB_CLAIM_AMENDED_EVENT} not recorded: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

function summarize(texts: StoredClaimTexts): DbClaimSummary {
  return summarizeClaim(readClaim(texts.profileText, texts.attestationText));
}
