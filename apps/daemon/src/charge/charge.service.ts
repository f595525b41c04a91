import { Inject, Injectable } from '@nestjs/common';

import {
  ChargeDecisionDetail,
  ChargeDecisionResponse,
  ClaimsResponse,
  DispatchResponse,
  ScheduleProjectSummary,
  ScheduleResponse,
  ScheduleStep,
} from '@app/contracts';
import {
  claimRefusal,
  compareRank,
  decideDispatch,
  DispatchRefusal,
  FrontierItem,
  itemLane,
  LiveClaim,
  mayAwaitApproval,
  offerToSession,
  placeForDispatch,
  projectMismatch,
  raisesWipCap,
  takesWipSlot,
  wipCapOverride,
} from '@app/core';

import { AccessService } from '../auth/access.service';
import { AuthenticatedActor } from '../auth/actor';
import { DomainError, validationFailed } from '../common/domain-error';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { nameWriterSession } from '../database/write-context';
import { EventsService } from '../events/events.service';
import { ComputedFrontier, FrontierService, wipCapOf } from '../frontier/read-path/frontier.service';
import { ENTRYPOINT_RECOVERY, projectNotFound } from '../frontier/frontier.errors';
import { renderEntrypoint } from '../frontier/read-path/workflow-stages';
import { RefsService } from '../refs/refs.service';
import { SessionRow } from '../sessions/dto/sessions.dto';
import { SessionsService } from '../sessions/sessions.service';
import { chargeError, ChargeErrorCode, wipCapOverrideForbidden } from './charge.errors';
import { ApprovalHalt, ChargeRepository, LiveClaimRow } from './charge.repository';
import { ChargeDecisionDto, ClaimsQueryDto, DispatchDto, ScheduleQueryDto } from './dto/charge.dto';

// A project as the frontier's service resolves it (its repository is private to frontier/).
type ProjectRow = Awaited<ReturnType<FrontierService['resolveProject']>>;

export function laneOf(computed: ComputedFrontier, item: FrontierItem): string {
  return itemLane({
    stageLane: computed.graph.workflows.get(item.workflow_version_id)?.stages.get(item.status)?.lane,
    adapter: item.adapter,
    routing: computed.graph.project.policy?.session_routing,
  });
}

const noEntrypointMessage = (item: FrontierItem) =>
  `workflow ${item.workflow_id} version ${item.workflow_version_id} binds no entrypoint at stage ${item.status}`;

interface RankedStep {
  step: ScheduleStep;
  item: FrontierItem;
}

// A recorded decision states what happened; fields that contradict its reason are refused, not trimmed.
export function assertDecisionConsistent(dto: ChargeDecisionDto): void {
  const fields: { field: string; problems: string[] }[] = [];
  if (dto.dispatched === true) {
    fields.push({
      field: 'dispatched',
      problems: [`a ${dto.reason} decision dispatched nothing (dispatched is false)`],
    });
  }
  if (dto.target_bucket !== undefined && dto.reason !== 'requested_item_unavailable') {
    fields.push({ field: 'target_bucket', problems: ['target_bucket is carried only by requested_item_unavailable'] });
  }
  if (fields.length === 0) return;
  throw validationFailed(fields);
}

@Injectable()
export class ChargeService {
  constructor(
    private readonly repository: ChargeRepository,
    private readonly frontier: FrontierService,
    private readonly sessions: SessionsService,
    private readonly events: EventsService,
    private readonly refs: RefsService,
    private readonly access: AccessService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  // The caller's standing is looked up only for a cap above the policy's (libs/core rulebook/wip-cap.ts).
  private async wipCapFor(actor: AuthenticatedActor, project: ProjectRow, asked: number | undefined): Promise<number> {
    const policyCap = wipCapOf(project, undefined);
    const standing = raisesWipCap(policyCap, asked) ? await this.access.projectAdministration(actor, project.id) : null;
    const decision = wipCapOverride({ policyCap, asked, isOrgAdmin: standing?.isOrgAdmin ?? false });
    if ('refuse' in decision) {
      throw wipCapOverrideForbidden(project.id, policyCap, asked!, standing?.organization ?? null);
    }
    return decision.cap;
  }

  step(computed: ComputedFrontier, item: FrontierItem, sessionId: number | null, claim?: LiveClaim): ScheduleStep {
    const stage = computed.graph.workflows.get(item.workflow_version_id)?.stages.get(item.status);
    const wait = item.adapter === 'wait';
    const entrypoint = wait
      ? null
      : renderEntrypoint(stage?.entrypoint ?? null, { ref: item.ref, project: computed.graph.project.id });
    const step: ScheduleStep = {
      position: 0,
      item_id: item.ref,
      title: item.title,
      project: item.project,
      status: item.status,
      priority: item.priority,
      adapter: item.adapter,
      lane: laneOf(computed, item),
      next_step: wait ? null : { stage: item.status, adapter: stage?.adapter ?? item.adapter, entrypoint },
      entrypoint,
      wait,
      wip_slot: takesWipSlot(item),
      claimed_by_session: claim !== undefined && claim.session_id === sessionId,
      unblocks_count: item.unblocks_count,
      downstream_depth: item.downstream_depth,
    };
    if (!wait && entrypoint === null) {
      step.error = {
        code: ChargeErrorCode.EntrypointUnavailable,
        message: noEntrypointMessage(item),
        recovery: ENTRYPOINT_RECOVERY,
      };
    }
    return step;
  }

  private projectSteps(
    computed: ComputedFrontier,
    claims: LiveClaimRow[],
    session: SessionRow | null,
  ): { steps: RankedStep[]; summary: ScheduleProjectSummary } {
    const { computation } = computed;
    const sessionId = session?.id ?? null;
    const offer = offerToSession({
      runnable: computation.runnable,
      claims,
      sessionId,
      sessionLane: session?.lane ?? null,
      laneOf: (item) => laneOf(computed, item),
      wipRemaining: computation.wip_remaining,
    });
    return {
      steps: offer.offered.map(({ item, claim }) => ({ step: this.step(computed, item, sessionId, claim), item })),
      summary: {
        project: computed.graph.project.id,
        wip_cap: computation.wip_cap,
        wip_active: computation.wip_active,
        wip_claimed: offer.slotsClaimed,
        wip_remaining: offer.wipRemaining,
        runnable: computation.runnable.length,
        blocked: computation.blocked.length,
        frozen: computation.frozen.length,
        claimed_elsewhere: offer.claimedElsewhere,
        wip_suppressed: offer.wipSuppressed,
        other_lanes: offer.otherLanes,
      },
    };
  }

  async schedule(actor: AuthenticatedActor, dto: ScheduleQueryDto): Promise<ScheduleResponse> {
    const session = dto.session_id ? await this.sessions.owned(actor, dto.session_id) : null;
    const accessible = await this.frontier.accessibleProjects(actor);
    let scope: ProjectRow[];
    if (dto.project) {
      scope = [await this.frontier.resolveProject(actor, dto.project)];
    } else {
      scope = accessible;
    }
    const claims = await this.repository.liveClaims(scope.map((p) => p.id));
    const ranked: RankedStep[] = [];
    const summaries: ScheduleProjectSummary[] = [];
    for (const project of scope) {
      const computed = await this.frontier.compute(
        project,
        await this.wipCapFor(actor, project, scope.length === 1 ? dto.wip_cap : undefined),
        actor.id,
        session?.id ?? null,
      );
      const { steps, summary } = this.projectSteps(
        computed,
        claims.filter((c) => c.project === project.id),
        session,
      );
      ranked.push(...steps);
      summaries.push(summary);
    }
    ranked.sort((a, b) => compareRank(a.item, b.item));
    const steps = ranked.map((r, i) => ({ ...r.step, position: i + 1 }));
    let elsewhere: ScheduleResponse['runnable_elsewhere'] = null;
    if (steps.length === 0 && dto.project) {
      elsewhere = [];
      for (const project of accessible.filter((p) => p.id !== dto.project)) {
        const computed = await this.frontier.compute(
          project,
          wipCapOf(project, undefined),
          actor.id,
          session?.id ?? null,
        );
        const others = await this.repository.liveClaims([project.id]);
        const { steps: offered } = this.projectSteps(computed, others, session);
        if (offered.length > 0) elsewhere.push({ project: project.id, runnable: offered.length });
      }
    }
    return {
      session_id: session?.id ?? null,
      lane: session?.lane ?? null,
      scope: scope.map((p) => p.id),
      steps,
      projects: summaries,
      runnable_elsewhere: elsewhere && elsewhere.length > 0 ? elsewhere : null,
    };
  }

  async dispatch(actor: AuthenticatedActor, dto: DispatchDto): Promise<DispatchResponse> {
    const session = await this.sessions.owned(actor, dto.session_id);
    nameWriterSession(session.id, session.harness);
    const resolved = await this.refs.resolve(dto.item_id);
    if (projectMismatch(dto.project, resolved.project)) {
      throw chargeError(ChargeErrorCode.ProjectMismatch, `${resolved.ref} belongs to project ${resolved.project}`);
    }
    const project = await this.frontier.resolveProject(actor, resolved.project).catch(() => {
      throw projectNotFound(resolved.project);
    });
    const wipCap = await this.wipCapFor(actor, project, dto.wip_cap);
    const computed = await this.frontier.compute(project, wipCap, actor.id, session.id);
    const placement = placeForDispatch(computed.computation, resolved.id);
    const halt = mayAwaitApproval(placement) ? await this.repository.awaitingApproval(resolved.id) : null;
    const verdict = decideDispatch({
      ref: resolved.ref,
      placement,
      awaitingApproval: halt,
      sessionLane: session.lane,
      stepOf: (item) => this.step(computed, item, session.id),
    });
    if ('refuse' in verdict) throw await this.refused(actor, session, project.id, verdict);
    return this.claim(actor, session.id, project.id, computed.computation, verdict.item, verdict.step.entrypoint);
  }

  // A refusal that decided something records its ChargeDecisionMade first and names the event in the error body.
  private async refused(
    actor: AuthenticatedActor,
    session: SessionRow,
    project: string,
    refusal: DispatchRefusal<ApprovalHalt>,
  ): Promise<DomainError> {
    if (refusal.refuse === 'lane_mismatch') {
      const { item, lane } = refusal;
      return chargeError(
        ChargeErrorCode.LaneMismatch,
        `${item.ref} is offered in lane ${lane}, the session is in ${session.lane}`,
        { item_id: item.ref, lane },
      );
    }
    const event = await this.recordDecision(actor, session.id, { ...refusal.decision, dispatched: false, project });
    const recorded = { decision_recorded: true, event_id: event.event_id };
    switch (refusal.refuse) {
      case 'deployment_awaiting_approval': {
        const { item, halt } = refusal;
        return chargeError(
          ChargeErrorCode.DeploymentAwaitingApproval,
          `${item.ref} is awaiting approval for ${halt.stage} (run ${halt.run_id}); approve it with svc approve ${item.ref}, then charge again`,
          {
            item_id: item.ref,
            run_id: halt.run_id,
            stage: halt.stage,
            environment: halt.environment,
            since: halt.halted_at.toISOString(),
            ...recorded,
          },
        );
      }
      case 'wait_adapter_encountered': {
        const { item, decision } = refusal;
        if (refusal.blocked) {
          return chargeError(
            ChargeErrorCode.WaitAdapterEncountered,
            `${decision.item_id} is blocked: ${item.blocked_reasons.join('; ')}`,
            { item_id: decision.item_id, blocked_reasons: item.blocked_reasons, ...recorded },
          );
        }
        return chargeError(
          ChargeErrorCode.WaitAdapterEncountered,
          `${item.ref} has the wait adapter at stage ${item.status}`,
          { item_id: item.ref, ...recorded },
        );
      }
      case 'item_not_runnable': {
        const { decision, targetBucket } = refusal;
        return chargeError(
          ChargeErrorCode.ItemNotRunnable,
          `${decision.item_id} is ${targetBucket === 'frozen' ? 'frozen' : 'not a frontier candidate'}`,
          { item_id: decision.item_id, target_bucket: targetBucket, ...recorded },
        );
      }
      case 'entrypoint_unavailable':
        return chargeError(ChargeErrorCode.EntrypointUnavailable, noEntrypointMessage(refusal.item), {
          item_id: refusal.item.ref,
          recovery: ENTRYPOINT_RECOVERY,
          ...recorded,
        });
    }
  }

  // The claim, the session's last_seen_at and the ChargeDecisionMade are one transaction: a dispatch either happened
  // with its record or not at all.
  private claim(
    actor: AuthenticatedActor,
    sessionId: number,
    project: string,
    computation: ComputedFrontier['computation'],
    item: FrontierItem,
    entrypoint: string,
  ): Promise<DispatchResponse> {
    const wipSlot = takesWipSlot(item);
    const detail: ChargeDecisionDetail = {
      item_id: item.ref,
      adapter: item.adapter,
      dispatched: true,
      reason: 'dispatched',
      project,
    };
    return this.repository.transaction(async (manager) => {
      const claimed = await this.repository.claim(manager, {
        itemId: item.item_id,
        sessionId,
        project,
        entrypoint,
        adapter: item.adapter,
        wipSlot,
        ttlSeconds: this.config.claimTtlSeconds,
        wipRemaining: computation.wip_remaining,
      });
      if (!claimed) {
        const holder = await this.repository.claimHolder(manager, item.item_id);
        if (claimRefusal({ holder, sessionId }) === 'item_already_claimed') {
          throw chargeError(ChargeErrorCode.ItemAlreadyClaimed, `${item.ref} is already claimed by another session`, {
            item_id: item.ref,
          });
        }
        throw chargeError(
          ChargeErrorCode.WipCapReached,
          `the WIP cap of ${project} (${computation.wip_cap}) is reached`,
          { item_id: item.ref, wip_cap: computation.wip_cap, wip_active: computation.wip_active },
        );
      }
      await this.repository.touchSession(manager, sessionId);
      const event = await this.events.record(
        {
          name: 'ChargeDecisionMade',
          kind: 'lifecycle',
          project,
          itemRef: item.ref,
          actorId: actor.id,
          sessionId,
          payload: { detail },
        },
        manager,
      );
      return {
        dispatched: true as const,
        item_id: item.ref,
        project,
        adapter: item.adapter,
        entrypoint,
        session_id: sessionId,
        wip_slot: wipSlot,
        claim: { claimed_at: claimed.claimed_at.toISOString(), expires_at: claimed.expires_at.toISOString() },
        decision: detail,
        event_id: event.id,
      };
    });
  }

  async claims(actor: AuthenticatedActor, dto: ClaimsQueryDto): Promise<ClaimsResponse> {
    const project = await this.frontier.resolveProject(actor, dto.project);
    const rows = await this.repository.claimHolders(project.id);
    return {
      project: project.id,
      claims: rows.map((r) => ({
        item_id: r.item_id,
        project: r.project,
        session_id: r.session_id,
        harness: r.harness,
        model: r.model,
        lane: r.lane,
        actor: r.actor,
        adapter: r.adapter,
        wip_slot: r.wip_slot,
        claimed_at: r.claimed_at.toISOString(),
        expires_at: r.expires_at.toISOString(),
      })),
    };
  }

  async decision(actor: AuthenticatedActor, dto: ChargeDecisionDto): Promise<ChargeDecisionResponse> {
    assertDecisionConsistent(dto);
    if (dto.session_id) await this.sessions.owned(actor, dto.session_id, { live: false });
    if (dto.project) await this.frontier.resolveProject(actor, dto.project);
    const detail: ChargeDecisionDetail = {
      item_id: dto.item_id ?? null,
      adapter: dto.adapter ?? null,
      dispatched: false,
      reason: dto.reason,
      project: dto.project ?? null,
    };
    if (dto.reason === 'requested_item_unavailable') detail.target_bucket = dto.target_bucket;
    return this.recordDecision(actor, dto.session_id ?? null, detail);
  }

  private async recordDecision(
    actor: AuthenticatedActor,
    sessionId: number | null,
    detail: ChargeDecisionDetail,
  ): Promise<ChargeDecisionResponse> {
    const event = await this.events.record({
      name: 'ChargeDecisionMade',
      kind: 'lifecycle',
      project: detail.project,
      itemRef: detail.item_id,
      actorId: actor.id,
      sessionId,
      payload: { detail },
    });
    return { event_id: event.id, detail };
  }
}
