import { Injectable } from '@nestjs/common';

import { WorkflowDefinition } from '@app/contracts/backlog';
import { checkProseMismatch, TERMINAL_STATUSES } from '@app/core';

import { DomainError } from '../common/domain-error';
import { DEFINITION_LEVEL_GATES, StageGateContext } from '../workflows/stage-gates';
import { proseMismatchRefused } from './db-claims.errors';
import { DbClaimsRepository } from './db-claims.repository';

export const DB_CLAIM_PROSE_GATE = DEFINITION_LEVEL_GATES.db_claim_prose_gate;

// Abandoning an item (cancelled, stopped, failed) is never a refine advance, evidence gate or polish gate.
const ABANDONED: ReadonlySet<string> = new Set(TERMINAL_STATUSES.filter((status) => status !== 'done'));

// Entering a stage of .enter, leaving one of .exit, or entering a stage that lists the gate itself.
export function proseGateApplies(
  definition: WorkflowDefinition,
  fromStage: string,
  toStage: string,
  listedOnTarget = false,
): boolean {
  if (fromStage === toStage || ABANDONED.has(toStage)) return false;
  if (listedOnTarget) return true;
  const config = definition.db_claim_prose_gate;
  if (!config) return false;
  return config.enter.includes(toStage) || config.exit.includes(fromStage);
}

@Injectable()
export class DbClaimProseGate {
  constructor(private readonly repository: DbClaimsRepository) {}

  // Reads in the status write's transaction, under its row lock: the claim checked is the one the write commits on.
  async check(ctx: Omit<StageGateContext, 'item'> & { item: { id: number } }): Promise<DomainError | null> {
    if (!proseGateApplies(ctx.definition, ctx.fromStage, ctx.toStage, ctx.gate !== null)) return null;
    const prose = await this.repository.findProse(ctx.item.id, ctx.manager);
    if (prose === null) return null;
    const mismatch = checkProseMismatch({ spec: prose.spec, body: prose.body }, prose.profileText);
    return mismatch === null ? null : proseMismatchRefused(mismatch);
  }
}
