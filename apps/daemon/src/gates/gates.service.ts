import { Injectable, OnModuleInit } from '@nestjs/common';

import { BlockerFacts, evaluateGate, evaluateGateBatch, GateEvaluation, planCandidates } from '@app/core';
import { CandidatePlanWire, GateEvaluationResponse, GateEvaluationWire } from '@app/contracts/backlog';

import { AuthenticatedActor } from '../auth/actor';
import { DomainError, invalidRequest } from '../common/domain-error';
import { blockedByDependencies } from './gates.errors';
import { DependencyFactsService, toGateBlockerWire } from '../dependencies/dependency-facts.service';
import { ProjectAccessService } from '../projects/project-access.service';
import { StageGateContext, StageGateRegistry } from '../workflows/stage-gates';
import { HARD_BLOCKS_GATE } from '../workflows/workflow-definition';
import { EvaluateBatchDto, PlanCandidatesDto } from './dto/gates.dto';
import { GatesRepository } from './gates.repository';

function toEvaluationWire(
  evaluation: GateEvaluation,
  ref: string,
  facts: ReadonlyMap<number, BlockerFacts>,
): GateEvaluationWire {
  return {
    item_id: ref,
    gate_point: evaluation.gate_point,
    satisfied: evaluation.satisfied,
    blockers: evaluation.blockers.map((b) => toGateBlockerWire(b, evaluation.gate_point, facts)),
  };
}

@Injectable()
export class GatesService implements OnModuleInit {
  constructor(
    private readonly facts: DependencyFactsService,
    private readonly access: ProjectAccessService,
    private readonly registry: StageGateRegistry,
    private readonly repository: GatesRepository,
  ) {}

  onModuleInit(): void {
    this.registry.register(HARD_BLOCKS_GATE, (ctx) => this.checkHardBlocks(ctx));
  }

  // The spec's blocker refusal: unsatisfied hard blocks at the gate point refuse the write, with each blocker's detail.
  async checkHardBlocks(ctx: StageGateContext): Promise<DomainError | null> {
    const gatePoint = ctx.gate?.gate_point ?? 'activation';
    const edges = await this.facts.edgesFor([ctx.item.id], gatePoint, ctx.manager);
    if (edges.length === 0) return null;
    const facts = await this.facts.facts(
      edges.map((e) => e.blocker),
      ctx.manager,
      [ctx.item.id],
    );
    const evaluation = evaluateGate(ctx.item.id, gatePoint, edges, facts);
    if (evaluation.satisfied) return null;
    const wire = toEvaluationWire(evaluation, ctx.item.ref, facts);
    const gateStage = ctx.gateStage ?? ctx.toStage;
    const what = ctx.write === 'merged_at' ? 'record merged_at' : `move to ${ctx.toStage}`;
    const via = ctx.write !== 'merged_at' && gateStage !== ctx.toStage ? ` (past the gate on ${gateStage})` : '';
    return blockedByDependencies(
      `${ctx.item.ref} cannot ${what}${via}: ${wire.blockers.length} unsatisfied ${gatePoint} ` +
        `dependenc${wire.blockers.length === 1 ? 'y' : 'ies'} (${wire.blockers.map((b) => b.reason).join('; ')})`,
      {
        item_id: ctx.item.ref,
        stage: ctx.toStage,
        gate_stage: gateStage,
        write: ctx.write ?? 'status',
        gate_point: gatePoint,
        blockers: wire.blockers,
      },
    );
  }

  async evaluate(actor: AuthenticatedActor, ref: string, gatePoint: string): Promise<GateEvaluationWire> {
    const item = await this.access.resolveItem(actor, ref);
    const edges = await this.facts.edgesFor([item.id], gatePoint);
    const facts = await this.facts.facts(
      edges.map((e) => e.blocker),
      undefined,
      [item.id],
    );
    return toEvaluationWire(evaluateGate(item.id, gatePoint, edges, facts), item.ref, facts);
  }

  async evaluateBatch(actor: AuthenticatedActor, dto: EvaluateBatchDto): Promise<GateEvaluationResponse> {
    if ((dto.items === undefined) === (dto.project === undefined)) {
      throw invalidRequest('give either items (refs) or project');
    }
    let targets: { id: number; ref: string }[];
    if (dto.project !== undefined) {
      await this.access.assertProject(actor, dto.project);
      targets = await this.repository.openItemsOf(dto.project);
    } else {
      const resolved = await this.access.resolveItems(actor, dto.items!);
      targets = dto.items!.map((r) => resolved.get(r)!);
    }
    const ids = targets.map((t) => t.id);
    const edges = await this.facts.edgesFor(ids, dto.gate_point);
    const facts = await this.facts.facts(
      edges.map((e) => e.blocker),
      undefined,
      ids,
    );
    const results = evaluateGateBatch(ids, dto.gate_point, edges, facts);
    return {
      gate_point: dto.gate_point,
      evaluations: targets.map((t) => toEvaluationWire(results.get(t.id)!, t.ref, facts)),
    };
  }

  async plan(actor: AuthenticatedActor, dto: PlanCandidatesDto): Promise<CandidatePlanWire> {
    const resolved = await this.access.resolveItems(actor, dto.items);
    const ids = dto.items.map((r) => resolved.get(r)!.id);
    const refOfId = new Map([...resolved.values()].map((r) => [r.id, r.ref]));
    const edges = await this.facts.edgesFor(ids, dto.gate_point);
    const facts = await this.facts.facts(
      edges.map((e) => e.blocker),
      undefined,
      ids,
    );
    const refOf = (id: number) => refOfId.get(id) ?? facts.get(id)?.ref;
    const plan = planCandidates(dto.gate_point, ids, edges, facts, { refOf });
    return {
      gate_point: plan.gate_point,
      eligible: plan.eligible.map((id) => refOf(id) ?? `#${id}`),
      blocked: plan.blocked.map((b) => ({
        item_id: refOf(b.item) ?? `#${b.item}`,
        blockers: b.blockers.map((x) => toGateBlockerWire(x, dto.gate_point, facts)),
        reasons: b.reasons,
        cycle: b.cycle ? b.cycle.map((id) => refOf(id) ?? `#${id}`) : null,
      })),
    };
  }
}
