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
import { compareRank, FrontierItem, raisesWipCap, takesWipSlot, wipCapOverride } from '@app/core';

import { AccessService } from '../auth/access.service';
import { AuthenticatedActor } from '../auth/actor';
import { validationFailed } from '../common/domain-error';
import { APP_CONFIG, AppConfig } from '../config/config';
import { nameWriterSession } from '../database/write-context';
import { EventsService } from '../events/events.service';
import { ComputedFrontier, FrontierService, wipCapOf } from '../frontier/read-path/frontier.service';
import { ENTRYPOINT_RECOVERY, projectNotFound } from '../frontier/frontier.errors';
import { renderEntrypoint } from '../frontier/read-path/workflow-stages';
import { RefsService } from '../refs/refs.service';
import { SessionRow } from '../sessions/dto/sessions.dto';
import { SessionsService } from '../sessions/sessions.service';
import { chargeError, ChargeErrorCode, wipCapOverrideForbidden } from './charge.errors';
import { ChargeRepository, LiveClaimRow } from './charge.repository';
import { ChargeDecisionDto, ClaimsQueryDto, DispatchDto, ScheduleQueryDto } from './dto/charge.dto';

// A project as the frontier's service resolves it (its repository is private to frontier/).
type ProjectRow = Awaited<ReturnType<FrontierService['resolveProject']>>;

export const DEFAULT_LANE = 'primary';

// An item's lane: its stage's declared lane, else the project's session_routing.adapter_lanes, else primary.
export function laneOf(computed: ComputedFrontier, item: FrontierItem): string {
  const stage = computed.graph.workflows.get(item.workflow_version_id)?.stages.get(item.status);
  if (stage?.lane) return stage.lane;
  const routing = computed.graph.project.policy?.session_routing as Record<string, unknown> | undefined;
  const adapterLanes = routing?.adapter_lanes as Record<string, unknown> | undefined;
  const lane = adapterLanes?.[item.adapter];
  return typeof lane === 'string' && lane.length > 0 ? lane : DEFAULT_LANE;
}

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

  // The cap a dispatch or schedule runs under: the project policy's, or the asked one where the WIP cap rule
  // (libs/core rulebook/wip-cap.ts) allows it; the caller's standing is looked up only for a cap above the policy's.
  private async wipCapFor(actor: AuthenticatedActor, project: ProjectRow, asked: number | undefined): Promise<number> {
    const policyCap = wipCapOf(project, undefined);
    const standing = raisesWipCap(policyCap, asked) ? await this.access.projectAdministration(actor, project.id) : null;
    const decision = wipCapOverride({ policyCap, asked, isOrgAdmin: standing?.isOrgAdmin ?? false });
    if ('refuse' in decision) {
      throw wipCapOverrideForbidden(project.id, policyCap, asked!, standing?.organization ?? null);
    }
    return decision.cap;
  }

  step(computed: ComputedFrontier, item: FrontierItem, sessionId: number | null, claim?: LiveClaimRow): ScheduleStep {
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
        message: `workflow ${item.workflow_id} version ${item.workflow_version_id} binds no entrypoint at stage ${item.status}`,
        recovery: ENTRYPOINT_RECOVERY,
      };
    }
    return step;
  }

  // The claim-aware offer of one project: runnable items in rank order, minus other sessions' live claims,
  // other lanes, and slot-taking work past the remaining WIP capacity (live slot claims count against it).
  private projectSteps(
    computed: ComputedFrontier,
    claims: LiveClaimRow[],
    session: SessionRow | null,
  ): { steps: RankedStep[]; summary: ScheduleProjectSummary } {
    const { computation } = computed;
    const claimOf = new Map(claims.map((c) => [c.item_id, c]));
    const sessionId = session?.id ?? null;
    let slotsHeld = 0;
    for (const c of claims) if (c.wip_slot && !c.in_wip && c.session_id !== sessionId) slotsHeld++;
    const ownSlots = claims.filter((c) => c.wip_slot && !c.in_wip && c.session_id === sessionId).length;
    let free = Math.max(0, computation.wip_remaining - slotsHeld - ownSlots);
    const steps: RankedStep[] = [];
    let claimedElsewhere = 0;
    let suppressed = 0;
    let otherLanes = 0;
    for (const item of computation.runnable) {
      const claim = claimOf.get(item.item_id);
      if (claim && claim.session_id !== sessionId) {
        claimedElsewhere++;
        continue;
      }
      if (session && laneOf(computed, item) !== session.lane) {
        otherLanes++;
        continue;
      }
      if (takesWipSlot(item) && !claim) {
        if (free === 0) {
          suppressed++;
          continue;
        }
        free--;
      }
      steps.push({ step: this.step(computed, item, sessionId, claim), item });
    }
    return {
      steps,
      summary: {
        project: computed.graph.project.id,
        wip_cap: computation.wip_cap,
        wip_active: computation.wip_active,
        wip_claimed: slotsHeld + ownSlots,
        wip_remaining: Math.max(0, computation.wip_remaining - slotsHeld - ownSlots),
        runnable: computation.runnable.length,
        blocked: computation.blocked.length,
        frozen: computation.frozen.length,
        claimed_elsewhere: claimedElsewhere,
        wip_suppressed: suppressed,
        other_lanes: otherLanes,
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
    if (dto.project && dto.project !== resolved.project) {
      throw chargeError(ChargeErrorCode.ProjectMismatch, `${resolved.ref} belongs to project ${resolved.project}`);
    }
    const project = await this.frontier.resolveProject(actor, resolved.project).catch(() => {
      throw projectNotFound(resolved.project);
    });
    const wipCap = await this.wipCapFor(actor, project, dto.wip_cap);
    const computed = await this.frontier.compute(project, wipCap, actor.id, session.id);
    const { computation } = computed;
    const decide = (detail: Omit<ChargeDecisionDetail, 'dispatched' | 'project'>) =>
      this.recordDecision(actor, session.id, { ...detail, dispatched: false, project: project.id });
    const runnable = computation.runnable.find((i) => i.item_id === resolved.id);
    // A run halted at a human-approval gate (the frontier lists the item as blocked by it): report the halt instead
    // of dispatching the usher step again.
    const placed = runnable ?? computation.blocked.find((i) => i.item_id === resolved.id);
    if (placed?.stage_adapter === 'usher') {
      const halted = await this.repository.awaitingApproval(resolved.id);
      if (halted) {
        const event = await this.recordDecision(actor, session.id, {
          item_id: placed.ref,
          adapter: 'usher',
          reason: 'wait_adapter_encountered',
          dispatched: false,
          project: project.id,
        });
        throw chargeError(
          ChargeErrorCode.DeploymentAwaitingApproval,
          `${placed.ref} is awaiting approval for ${halted.stage} (run ${halted.run_id}); approve it with svc approve ${placed.ref}, then charge again`,
          {
            item_id: placed.ref,
            run_id: halted.run_id,
            stage: halted.stage,
            environment: halted.environment,
            since: halted.halted_at.toISOString(),
            decision_recorded: true,
            event_id: event.event_id,
          },
        );
      }
    }
    if (!runnable) {
      const blocked = computation.blocked.find((i) => i.item_id === resolved.id);
      if (blocked) {
        // The item was offered as runnable but a blocker appeared: the wait adapter stops the dispatch.
        const event = await decide({ item_id: resolved.ref, adapter: 'wait', reason: 'wait_adapter_encountered' });
        throw chargeError(
          ChargeErrorCode.WaitAdapterEncountered,
          `${resolved.ref} is blocked: ${blocked.blocked_reasons.join('; ')}`,
          {
            item_id: resolved.ref,
            blocked_reasons: blocked.blocked_reasons,
            decision_recorded: true,
            event_id: event.event_id,
          },
        );
      }
      const frozen = computation.frozen.some((i) => i.item_id === resolved.id);
      const event = await decide({
        item_id: resolved.ref,
        adapter: null,
        reason: 'requested_item_unavailable',
        target_bucket: frozen ? 'frozen' : 'not_found',
      });
      throw chargeError(
        ChargeErrorCode.ItemNotRunnable,
        `${resolved.ref} is ${frozen ? 'frozen' : 'not a frontier candidate'}`,
        {
          item_id: resolved.ref,
          target_bucket: frozen ? 'frozen' : 'not_found',
          decision_recorded: true,
          event_id: event.event_id,
        },
      );
    }
    const step = this.step(computed, runnable, session.id);
    if (step.wait) {
      const event = await decide({ item_id: runnable.ref, adapter: 'wait', reason: 'wait_adapter_encountered' });
      throw chargeError(
        ChargeErrorCode.WaitAdapterEncountered,
        `${runnable.ref} has the wait adapter at stage ${runnable.status}`,
        {
          item_id: runnable.ref,
          decision_recorded: true,
          event_id: event.event_id,
        },
      );
    }
    if (step.error || !step.entrypoint) {
      const event = await decide({
        item_id: runnable.ref,
        adapter: runnable.adapter,
        reason: 'entrypoint_unavailable',
      });
      throw chargeError(ChargeErrorCode.EntrypointUnavailable, step.error?.message ?? 'no entrypoint', {
        item_id: runnable.ref,
        recovery: ENTRYPOINT_RECOVERY,
        decision_recorded: true,
        event_id: event.event_id,
      });
    }
    if (step.lane !== session.lane) {
      throw chargeError(
        ChargeErrorCode.LaneMismatch,
        `${runnable.ref} is offered in lane ${step.lane}, the session is in ${session.lane}`,
        {
          item_id: runnable.ref,
          lane: step.lane,
        },
      );
    }
    const entrypoint = step.entrypoint;
    const detail: ChargeDecisionDetail = {
      item_id: runnable.ref,
      adapter: runnable.adapter,
      dispatched: true,
      reason: 'dispatched',
      project: project.id,
    };
    return this.repository.transaction(async (manager) => {
      const claimed = await this.repository.claim(manager, {
        itemId: resolved.id,
        sessionId: session.id,
        project: project.id,
        entrypoint,
        adapter: runnable.adapter,
        wipSlot: step.wip_slot,
        ttlSeconds: this.config.claimTtlSeconds,
        wipRemaining: computation.wip_remaining,
      });
      if (!claimed) {
        const holder = await this.repository.claimHolder(manager, resolved.id);
        if (holder !== null && holder !== session.id) {
          throw chargeError(
            ChargeErrorCode.ItemAlreadyClaimed,
            `${runnable.ref} is already claimed by another session`,
            {
              item_id: runnable.ref,
            },
          );
        }
        throw chargeError(
          ChargeErrorCode.WipCapReached,
          `the WIP cap of ${project.id} (${computation.wip_cap}) is reached`,
          {
            item_id: runnable.ref,
            wip_cap: computation.wip_cap,
            wip_active: computation.wip_active,
          },
        );
      }
      await this.repository.touchSession(manager, session.id);
      const event = await this.events.record(
        {
          name: 'ChargeDecisionMade',
          kind: 'lifecycle',
          project: project.id,
          itemRef: runnable.ref,
          actorId: actor.id,
          sessionId: session.id,
          payload: { detail },
        },
        manager,
      );
      return {
        dispatched: true as const,
        item_id: runnable.ref,
        project: project.id,
        adapter: runnable.adapter,
        entrypoint,
        session_id: session.id,
        wip_slot: step.wip_slot,
        claim: { claimed_at: claimed.claimed_at.toISOString(), expires_at: claimed.expires_at.toISOString() },
        decision: detail,
        event_id: event.id,
      };
    });
  }

  // GET /v1/charge/claims: the live claims on the project's items and who holds them (the frontier's visibility).
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

  // Terminal exits decided by the command line (dry run, cancel, nothing runnable, ...).
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
