import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import type {
  DeploymentApprovalResponse,
  EnvironmentListResponse,
  EnvironmentWire,
  FlowListResponse,
  FlowWire,
  RunListResponse,
  RunWire,
} from '@app/contracts';
import {
  approverShortfall,
  approverStanding,
  ApproverStanding,
  decideApproval,
  deploymentComplete,
  mayRetireEnvironment,
  runHalt,
  runPosition,
  skippedApproval,
  stageApprovalNeeds,
  strongestApproval,
} from '@app/core';

import { AuthenticatedActor, seesEveryProject } from '../auth/actor';
import { DomainError, validationMessage } from '../common/domain-error';
import { notePassed } from '../database/write-context';
import { EventsService } from '../events/events.service';
import { ProjectAccessService } from '../projects/project-access.service';
import { RefsService } from '../refs/refs.service';
import { StageGateContext } from '../workflows/stage-gates';
import { deploymentError, DeploymentErrorCode } from './deployments.errors';
import { DeploymentsRepository } from './deployments.repository';
import {
  ApproveDto,
  CreateEnvironmentDto,
  RecordedApproval,
  CreateFlowDto,
  CreateRunDto,
  haltOf,
  ResumeRunDto,
  RunRow,
  toRunResponse,
  UpdateRunDto,
} from './dto/deployments.dto';
import {
  approvalRequired,
  approverRequired,
  deploymentRunNotFound,
  environmentAdminRequired,
  environmentNotFound,
  runNotHalted,
  runStillHalted,
} from './deployments.errors';
import { ApprovalRole, FlowStage, flowStagesProblem, parseFlowStages } from './flow-stages';

const flowNotFound = (id: string) =>
  deploymentError(DeploymentErrorCode.DeploymentFlowNotFound, `no deployment flow ${id}`);

export const DEPLOYMENT_COMPLETE_GATE = 'deployment_complete';
// The status an item reaches only once its deployment run completed (unless its flow says otherwise).
const DONE = 'done';

function runState(run: RunRow) {
  return {
    id: run.id,
    status: run.status,
    environment: run.environment,
    current_stage: run.current_stage,
    stage_index: run.stage_index,
    stage_count: run.stage_count,
    halt: haltOf(run),
  };
}

@Injectable()
export class DeploymentsService {
  constructor(
    private readonly repository: DeploymentsRepository,
    private readonly access: ProjectAccessService,
    private readonly refs: RefsService,
    private readonly events: EventsService,
  ) {}

  // For another feature that checked the caller's access itself (transfer's export): the project's rows as stored.
  flowsOf(project: string, manager?: EntityManager): Promise<FlowWire[]> {
    return this.repository.flows(project, manager);
  }

  environmentsOf(project: string, manager?: EntityManager): Promise<EnvironmentWire[]> {
    return this.repository.environments(project, manager);
  }

  runsOf(project: string, manager?: EntityManager): Promise<RunRow[]> {
    return this.repository.runs(project, manager);
  }

  approvalsOf(project: string, manager?: EntityManager): Promise<RecordedApproval[]> {
    return this.repository.approvalsOfProject(project, manager);
  }

  // Transfer's import of a flow the project did not hold: approval stages need an approver of their strength.
  async checkImportedFlow(
    actor: AuthenticatedActor,
    project: string,
    flow: { id: string; stages?: unknown[] },
    manager: EntityManager,
  ): Promise<void> {
    const problem = flowStagesProblem(flow.stages ?? []);
    if (problem) throw validationMessage(`deployment flow ${flow.id}: ${problem}`);
    const standing = await this.approverStanding(actor, project, manager);
    const needs = stageApprovalNeeds(parseFlowStages(flow.stages ?? []), standing.policyAdmin);
    this.assertApprover(standing, strongestApproval(needs), `importing deployment flow ${flow.id}`);
  }

  // Transfer's import of a run not as stored: it must be one the routes would have recorded (writer, approvals).
  async checkImportedRun(actor: AuthenticatedActor, runId: string, manager: EntityManager): Promise<void> {
    const run = (await this.repository.lockRun(runId, manager))!;
    await this.assertRunWrites(actor, run, `importing deployment run ${runId}`, manager);
    const flow = run.flow_id ? await this.repository.flow(run.flow_id, manager) : null;
    const stages = flow ? parseFlowStages(flow.stages) : [];
    await this.assertApprovalsPassed(run, stages, run.stage_index, null, manager);
  }

  async createFlow(actor: AuthenticatedActor, dto: CreateFlowDto): Promise<FlowWire> {
    await this.access.assertProject(actor, dto.project);
    const problem = flowStagesProblem(dto.stages);
    if (problem) throw validationMessage(problem);
    // the environments the flow reaches and the approvals they need, already or by its own approval stages
    const stages = parseFlowStages(dto.stages);
    const reached = stages.map((s) => s.environment ?? s.name);
    if (dto.target_tier) reached.push(dto.target_tier);
    const needs = [...(await this.repository.approvalRoles(dto.project, reached, null)).entries()];
    const standing = await this.approverStanding(actor, dto.project);
    needs.push(...stageApprovalNeeds(stages, standing.policyAdmin));
    this.assertApprover(standing, strongestApproval(needs), `creating deployment flow ${dto.id}`);
    const inserted = await this.repository.insertFlow({
      id: dto.id,
      project: dto.project,
      name: dto.name,
      stages: dto.stages,
      target_tier: dto.target_tier ?? null,
      done_description: dto.done_description ?? null,
      active: dto.active ?? true,
      closing: dto.closing ?? false,
      complete_before_done: dto.complete_before_done ?? true,
    });
    if (!inserted)
      throw deploymentError(DeploymentErrorCode.DeploymentFlowExists, `deployment flow ${dto.id} already exists`);
    return (await this.repository.flow(dto.id))!;
  }

  async flows(actor: AuthenticatedActor, project: string): Promise<FlowListResponse> {
    await this.access.assertProject(actor, project);
    return { flows: await this.repository.flows(project) };
  }

  async createEnvironment(actor: AuthenticatedActor, dto: CreateEnvironmentDto): Promise<EnvironmentWire> {
    await this.access.assertProject(actor, dto.project);
    if (dto.flow_id !== undefined) {
      const flow = await this.repository.flow(dto.flow_id);
      if (!flow || flow.project !== dto.project) throw flowNotFound(dto.flow_id);
    }
    await this.assertWrites(actor, dto.project, dto.name, dto.flow_id ?? null, null, 'registering an environment');
    const inserted = await this.repository.insertEnvironment({
      project: dto.project,
      name: dto.name,
      tier: dto.tier ?? null,
      flow_id: dto.flow_id ?? null,
    });
    if (!inserted) {
      const existing = await this.repository.environment(dto.project, dto.name);
      throw deploymentError(
        DeploymentErrorCode.EnvironmentExists,
        existing?.retired_at
          ? `project ${dto.project} already has an environment ${dto.name}, retired; an admin un-retires it (svc deployments environments unretire ${dto.name} --project ${dto.project})`
          : `project ${dto.project} already has an environment ${dto.name}`,
        { retired: existing?.retired_at != null },
      );
    }
    return (await this.repository.environment(dto.project, dto.name))!;
  }

  async environments(actor: AuthenticatedActor, project: string): Promise<EnvironmentListResponse> {
    await this.access.assertProject(actor, project);
    return { environments: await this.repository.environments(project) };
  }

  // A retired environment stops satisfying fact:deployed.
  async retireEnvironment(actor: AuthenticatedActor, project: string, name: string): Promise<EnvironmentWire> {
    await this.assertEnvironmentAdmin(actor, project, name, 'retire');
    if (!(await this.repository.setEnvironmentRetired(project, name, true))) throw environmentNotFound(project, name);
    return (await this.repository.environment(project, name))!;
  }

  async unretireEnvironment(actor: AuthenticatedActor, project: string, name: string): Promise<EnvironmentWire> {
    await this.assertEnvironmentAdmin(actor, project, name, 'unretire');
    if (!(await this.repository.setEnvironmentRetired(project, name, false))) throw environmentNotFound(project, name);
    return (await this.repository.environment(project, name))!;
  }

  private async assertEnvironmentAdmin(
    actor: AuthenticatedActor,
    project: string,
    name: string,
    what: 'retire' | 'unretire',
  ): Promise<void> {
    await this.access.assertProject(actor, project);
    if (!seesEveryProject(actor)) {
      const standing = await this.repository.approverStanding(project, actor.id);
      if (!mayRetireEnvironment(false, standing)) throw environmentAdminRequired(what, name, standing.organization);
    }
    notePassed('role');
  }

  async createRun(actor: AuthenticatedActor, dto: CreateRunDto): Promise<RunWire> {
    await this.access.assertProject(actor, dto.project);
    const resolved = await this.access.resolveItems(actor, dto.items);
    const ids = [...new Set(dto.items.map((r) => resolved.get(r)!.id))];
    let stageCount = dto.stage_count;
    if (dto.flow_id !== undefined) {
      const flow = await this.repository.flow(dto.flow_id);
      if (!flow || flow.project !== dto.project) throw flowNotFound(dto.flow_id);
      stageCount ??= flow.stages.length;
    }
    await this.assertWrites(actor, dto.project, dto.environment, dto.flow_id ?? null, null, 'a deployment run');
    const run = await this.repository.transaction(async (manager) => {
      const id = await this.repository.insertRun(
        {
          project: dto.project,
          flow_id: dto.flow_id ?? null,
          environment: dto.environment,
          status: dto.status ?? 'running',
          current_stage: dto.current_stage ?? null,
          stage_index: dto.stage_index ?? 0,
          stage_count: stageCount ?? 0,
          items: ids,
          qa_summary: dto.qa_summary ?? null,
          blocked_reason: dto.blocked_reason ?? null,
        },
        manager,
      );
      if (dto.capabilities !== undefined) await this.repository.setCapabilities(id, dto.capabilities, manager);
      const row = await this.gate((await this.repository.lockRun(id, manager))!, dto, manager, null);
      await this.repository.cacheDeployStage(row, manager);
      return row;
    });
    return this.toWire(run);
  }

  async updateRun(actor: AuthenticatedActor, id: string, dto: UpdateRunDto): Promise<RunWire> {
    const existing = await this.repository.run(id);
    if (!existing || !(await this.access.canSee(actor, [existing.project]))) {
      throw deploymentError(DeploymentErrorCode.DeploymentRunNotFound, `no deployment run ${id}`);
    }
    await this.assertRunWrites(actor, existing, `updating deployment run ${id}`);
    const run = await this.repository.transaction(async (manager) => {
      const locked = (await this.repository.lockRun(id, manager))!;
      // a re-run (the usher step again) of a halted run resumes it unless it names another status
      const resumed = locked.status === 'halted' && locked.halt_kind !== null && dto.status === undefined;
      const { capabilities: _capabilities, ...values } = dto;
      await this.repository.updateRun(id, { ...values, ...(resumed ? { status: 'running' } : {}) }, manager);
      if (dto.capabilities !== undefined) await this.repository.setCapabilities(id, dto.capabilities, manager);
      const row = await this.gate((await this.repository.lockRun(id, manager))!, dto, manager, locked);
      await this.repository.cacheDeployStage(row, manager);
      return row;
    });
    return this.toWire(run);
  }

  // 409 run_not_halted when there is no halt (a second resume changes nothing), run_still_halted when the gate holds.
  async resumeRun(actor: AuthenticatedActor, id: string, dto: ResumeRunDto): Promise<RunWire> {
    const existing = await this.repository.run(id);
    if (!existing || !(await this.access.canSee(actor, [existing.project]))) throw deploymentRunNotFound(id);
    await this.assertRunWrites(actor, existing, `resuming deployment run ${id}`);
    const run = await this.repository.transaction(async (manager) => {
      const locked = (await this.repository.lockRun(id, manager))!;
      if (locked.status !== 'halted' || locked.halt_kind === null) throw runNotHalted(runState(locked));
      if (dto.capabilities !== undefined) await this.repository.setCapabilities(id, dto.capabilities, manager);
      await this.repository.updateRun(id, { status: 'running' }, manager);
      const row = await this.gate((await this.repository.lockRun(id, manager))!, dto, manager, locked);
      if (row.halt_kind !== null) {
        const refs = await this.refs.refsOf(row.carried_items);
        throw runStillHalted(
          runState(row),
          row.carried_items.map((i) => refs.get(i) ?? `#${i}`),
        );
      }
      await this.repository.cacheDeployStage(row, manager);
      const refs = await this.refs.refsOf(row.carried_items);
      await this.events.record(
        {
          name: 'DeploymentResumed',
          kind: 'lifecycle',
          project: row.project,
          itemRef: refs.get(row.carried_items[0]) ?? null,
          actorId: actor.id,
          payload: {
            run_id: row.id,
            environment: row.environment,
            stage: row.current_stage,
            stage_index: row.stage_index,
            halt: { kind: locked.halt_kind, stage: locked.halt_stage, missing: locked.halt_missing ?? [] },
            items: row.carried_items.map((i) => refs.get(i) ?? `#${i}`),
            resumed_by: actor.name,
          },
        },
        manager,
      );
      return row;
    });
    return this.toWire(run);
  }

  async runs(actor: AuthenticatedActor, project: string): Promise<RunListResponse> {
    await this.access.assertProject(actor, project);
    const rows = await this.repository.runs(project);
    const refs = await this.refs.refsOf([...new Set(rows.flatMap((r) => r.carried_items))]);
    return { runs: rows.map((r) => toRunResponse(r, refs)) };
  }

  // A refusal leaves the caller's transaction changing nothing. `before` (null for a new run) is for the refusal.
  private async gate(
    run: RunRow,
    dto: { capabilities?: string[]; current_stage?: string; stage_index?: number },
    manager: EntityManager,
    before: RunRow | null,
  ): Promise<RunRow> {
    const flow = run.flow_id ? await this.repository.flow(run.flow_id, manager) : null;
    const stages = flow ? parseFlowStages(flow.stages) : [];
    const position = runPosition(stages, run.stage_index, dto.current_stage);
    const approved = await this.assertApprovalsPassed(run, stages, position, before, manager);
    if (stages.length === 0) return run;
    const halt = runHalt({
      stages,
      status: run.status,
      position,
      approvedStages: approved.stages,
      capabilities: dto.capabilities ?? run.capabilities ?? [],
    });
    if (halt) {
      await this.repository.updateRun(
        run.id,
        { status: 'halted', current_stage: halt.stage.name, stage_index: halt.position },
        manager,
      );
      await this.repository.setHalt(
        run.id,
        { kind: halt.kind, stage: halt.stage.name, missing: halt.missing },
        manager,
      );
    } else {
      if (
        dto.stage_index !== undefined &&
        dto.current_stage === undefined &&
        position >= 1 &&
        position <= stages.length
      ) {
        await this.repository.updateRun(run.id, { current_stage: stages[position - 1].name }, manager);
      }
      if (run.halt_kind !== null) await this.repository.setHalt(run.id, null, manager);
    }
    return (await this.repository.run(run.id, manager))!;
  }

  private async assertApprovalsPassed(
    run: RunRow,
    stages: FlowStage[],
    position: number,
    before: RunRow | null,
    manager: EntityManager,
  ): Promise<{ stages: Set<number>; byAdmin: boolean }> {
    const approved = await this.repository.approvals(run.id, manager);
    const refuse = async (need: { stage: string | null; stage_index: number | null }) =>
      approvalRequired(
        before && runState(before),
        run.environment,
        { ...need, required_approval: run.required_approval },
        [...(await this.refs.refsOf(run.carried_items)).values()],
      );
    const skipped = skippedApproval({
      stages,
      status: run.status,
      position,
      requiredApproval: run.required_approval,
      approvedStages: approved.stages,
      approvedByAdmin: approved.byAdmin,
    });
    if (skipped) throw await refuse(skipped);
    return approved;
  }

  async approve(actor: AuthenticatedActor, dto: ApproveDto): Promise<DeploymentApprovalResponse> {
    const item = await this.access.resolveItem(actor, dto.item);
    return this.repository.transaction(async (manager) => {
      const run = await this.repository.latestFlowRun(item.id, manager, true);
      if (!run || run.status !== 'halted' || run.halt_kind !== 'awaiting-approval') {
        throw deploymentError(
          DeploymentErrorCode.NotAwaitingApproval,
          run
            ? `${item.ref} is not awaiting approval: its run ${run.id} is ${haltOf(run)?.summary ?? run.status}`
            : `${item.ref} is not awaiting approval: no deployment run carries it`,
          { item_id: item.ref, run: run ? runState(run) : null },
        );
      }
      const flow = run.flow_id ? await this.repository.flow(run.flow_id, manager) : null;
      const stage = flow ? parseFlowStages(flow.stages)[run.stage_index - 1] : undefined;
      const existing = await this.repository.approval(run.id, run.stage_index, manager);
      if (existing) {
        throw deploymentError(
          DeploymentErrorCode.AlreadyApproved,
          `${run.halt_stage} of run ${run.id} was already approved by ${existing.approved_by ?? 'a removed actor'}; re-run the usher step`,
          {
            item_id: item.ref,
            run: runState(run),
            approved_by: existing.approved_by,
            approved_at: existing.approved_at,
          },
        );
      }
      const standing = await this.repository.approverStanding(run.project, actor.id, manager);
      const decision = decideApproval({
        isServerAdmin: actor.isAdmin,
        membership: standing,
        stageRole: stage?.approval?.role ?? null,
        policyApprovalRole: standing.policy.deployment_approval_role,
      });
      if (!decision.allow && decision.code === 'organization_membership_required') {
        throw deploymentError(
          DeploymentErrorCode.OrganizationMembershipRequired,
          `only active members of ${standing.organization} approve its deployments`,
          { organization: standing.organization },
        );
      }
      if (!decision.allow) {
        throw deploymentError(
          DeploymentErrorCode.AdminApprovalRequired,
          `${run.halt_stage} needs an admin's approval${standing.organization ? ` of ${standing.organization}` : ''}`,
          { organization: standing.organization },
        );
      }
      const { asAdmin } = decision;
      const inserted = await this.repository.insertApproval(
        {
          runId: run.id,
          stageIndex: run.stage_index,
          stage: run.halt_stage ?? '',
          itemId: item.id,
          actorId: actor.id,
          role: asAdmin ? 'admin' : 'member',
        },
        manager,
      );
      if (!inserted)
        throw deploymentError(
          DeploymentErrorCode.AlreadyApproved,
          `${run.halt_stage} of run ${run.id} was already approved`,
        );
      // before the event: recording it is the transaction's last statement (EventsRepository.insert)
      const carried = await this.refs.refsOf(run.carried_items);
      const event = await this.events.record(
        {
          name: 'DeploymentApproved',
          kind: 'lifecycle',
          project: run.project,
          itemRef: item.ref,
          actorId: actor.id,
          payload: {
            run_id: run.id,
            environment: run.environment,
            stage: run.halt_stage,
            stage_index: run.stage_index,
            approved_by: actor.name,
          },
        },
        manager,
      );
      return {
        item_id: item.ref,
        run_id: run.id,
        environment: run.environment,
        stage: run.halt_stage ?? '',
        stage_index: run.stage_index,
        approved_by: actor.name,
        approved_at: inserted.approved_at,
        event_id: event.id,
        run: toRunResponse(run, carried),
      };
    });
  }

  // The deployment_complete stage gate: an item carried by a deployment flow reaches done only once its newest
  // run of a flow succeeded (the flow's complete_before_done: false lifts it).
  async checkComplete(ctx: StageGateContext): Promise<DomainError | null> {
    if (ctx.toStage !== DONE || ctx.fromStage === DONE) return null;
    const run = await this.repository.latestFlowRun(ctx.item.id, ctx.manager);
    if (run) {
      const flow =
        run.status !== 'succeeded' && run.flow_id ? await this.repository.flow(run.flow_id, ctx.manager) : null;
      if (deploymentComplete(run.status, flow?.complete_before_done ?? true)) return null;
      const halt = haltOf(run);
      return deploymentError(
        DeploymentErrorCode.DeploymentIncomplete,
        `${ctx.item.ref} cannot be done before its deployment run ${run.id} to ${run.environment} completes (it is ${halt?.summary ?? `${run.status} at ${run.current_stage ?? 'its start'}`})`,
        { item_id: ctx.item.ref, gate: DEPLOYMENT_COMPLETE_GATE, run: runState(run) },
      );
    }
    const { flow, completeBeforeDone } = await this.repository.itemFlow(ctx.item.id, ctx.manager);
    if (flow === null || !completeBeforeDone) return null;
    return deploymentError(
      DeploymentErrorCode.DeploymentIncomplete,
      `${ctx.item.ref} is in deployment flow ${flow} and cannot be done before a run of it completes (none has started)`,
      { item_id: ctx.item.ref, gate: DEPLOYMENT_COMPLETE_GATE, run: null },
    );
  }

  // A server admin writes gated flows anywhere but still approves only where decideApproval lets them.
  private async approverStanding(
    actor: AuthenticatedActor,
    project: string,
    manager?: EntityManager,
  ): Promise<ApproverStanding> {
    const standing = await this.repository.approverStanding(project, actor.id, manager);
    return approverStanding(actor.isAdmin, standing, standing.policy.deployment_approval_role);
  }

  private assertApprover(standing: ApproverStanding, need: [string, ApprovalRole] | null, what: string): void {
    const shortfall = approverShortfall(standing, need);
    if (shortfall) throw approverRequired(what, shortfall.environment, shortfall.required, standing.organization);
  }

  private async assertWrites(
    actor: AuthenticatedActor,
    project: string,
    environment: string,
    flowId: string | null,
    recorded: ApprovalRole | null,
    what: string,
    manager?: EntityManager,
  ): Promise<void> {
    const needs: [string, ApprovalRole][] = [
      ...(await this.repository.approvalRoles(project, [environment], flowId, manager)).entries(),
    ];
    if (recorded !== null) needs.push([environment, recorded]);
    const need = strongestApproval(needs);
    if (need === null) return;
    this.assertApprover(await this.approverStanding(actor, project, manager), need, what);
  }

  private assertRunWrites(
    actor: AuthenticatedActor,
    run: RunRow,
    what: string,
    manager?: EntityManager,
  ): Promise<void> {
    return this.assertWrites(actor, run.project, run.environment, run.flow_id, run.required_approval, what, manager);
  }

  private async toWire(run: RunRow): Promise<RunWire> {
    return toRunResponse(run, await this.refs.refsOf(run.carried_items));
  }
}
