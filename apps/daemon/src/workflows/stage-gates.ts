import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { WorkflowDefinition, WorkflowGateSpec, WorkflowStage } from '@app/contracts/backlog';
import { crossedStages } from '@app/core';

import { DomainError } from '../common/domain-error';
import { stageOf } from './workflow-definition';
import { gateUnavailable } from './workflows.errors';

// What a checker sees of the item, read under the status write's row lock.
export interface StageGateItem {
  id: number;
  ref: string;
  project: string;
  status: string;
  workflowId: string;
  workflowVersionId: number;
  title: string;
  spec: string | null;
  body: string | null;
  renderedBody: string;
  dbMutationProfile: string;
  dbCompatibilityAttestation: string;
  frozen: boolean;
  blocked: boolean;
}

export interface StageGateContext {
  item: StageGateItem;
  fromStage: string;
  toStage: string;
  definition: WorkflowDefinition;
  gate: WorkflowGateSpec | null;
  // the stage listing the gate (the target or a stage the write moves past); null for a definition-level gate
  gateStage?: string | null;
  // what is being written: a status move, or merged_at (which passes the merge stage's gates)
  write?: 'status' | 'merged_at';
  manager: EntityManager;
}

export type StageGateChecker = (ctx: StageGateContext) => Promise<DomainError | null>;

// Gates of every transition; the checker decides from the key's value whether this one is concerned.
export const DEFINITION_LEVEL_GATES: Readonly<Record<string, string>> = {
  db_claim_prose_gate: 'check_db_claim_prose',
};

// Feature modules register checkers on init; check() runs in the status write's transaction, item row locked.
@Injectable()
export class StageGateRegistry {
  private readonly logger = new Logger(StageGateRegistry.name);
  private readonly checkers = new Map<string, StageGateChecker>();
  private readonly warned = new Set<string>();
  private readonly universal: string[] = [];

  register(type: string, checker: StageGateChecker): void {
    if (this.checkers.has(type)) throw new Error(`stage gate ${type} is already registered`);
    this.checkers.set(type, checker);
  }

  // A gate of the daemon itself rather than of a workflow (e.g. deployment_complete: done waits for the run).
  registerUniversal(type: string, checker: StageGateChecker): void {
    this.register(type, checker);
    this.universal.push(type);
  }

  has(type: string): boolean {
    return this.checkers.has(type);
  }

  types(): string[] {
    return [...this.checkers.keys()].sort();
  }

  // Throws the first refusal: the gates of every stage the write reaches or moves past, in stage order, then the
  // definition-level gates. A gate listed on a stage without a checker fails closed.
  async check(ctx: Omit<StageGateContext, 'gate'>): Promise<void> {
    for (const stage of crossedStages(ctx.definition.stages, ctx.fromStage, ctx.toStage)) {
      await this.runStageGates(ctx, stage);
    }
    for (const [key, type] of Object.entries(DEFINITION_LEVEL_GATES)) {
      if ((ctx.definition as unknown as Record<string, unknown>)[key] === undefined) continue;
      const checker = this.checkers.get(type);
      if (!checker) {
        if (!this.warned.has(type)) {
          this.warned.add(type);
          this.logger.warn(`workflow key ${key} is set but no ${type} checker is registered; not enforced`);
        }
        continue;
      }
      const refusal = await checker({ ...ctx, gate: null, gateStage: null });
      if (refusal) throw refusal;
    }
  }

  // merged_at passes the gates of merge_stage, as reaching it would; no merge_stage, no gate.
  async checkMergeRecorded(ctx: Omit<StageGateContext, 'gate' | 'fromStage' | 'toStage'>): Promise<void> {
    const mergeStage = ctx.definition.merge_stage ? stageOf(ctx.definition, ctx.definition.merge_stage) : undefined;
    if (!mergeStage) return;
    const status = ctx.item.status;
    await this.runStageGates({ ...ctx, fromStage: status, toStage: status, write: 'merged_at' }, mergeStage);
  }

  private async runStageGates(ctx: Omit<StageGateContext, 'gate'>, stage: WorkflowStage): Promise<void> {
    for (const gate of stage.gates) {
      const checker = this.checkers.get(gate.type);
      if (!checker) {
        throw gateUnavailable(stage.id, gate.type);
      }
      const refusal = await checker({ ...ctx, gate, gateStage: stage.id });
      if (refusal) throw refusal;
    }
    for (const type of this.universal) {
      const refusal = await this.checkers.get(type)!({ ...ctx, gate: null });
      if (refusal) throw refusal;
    }
  }
}
