import { Inject, Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import {
  MachineAuthorizationApproved,
  MachineAuthorizationDiscovery,
  MachineAuthorizationModelName,
  MachineAuthorizationModels,
  MachineAuthorizationRecord,
  MachineAuthorizationRequestDenyResponse,
  MachineAuthorizationRequestList,
  MachineAuthorizationResolveResponse,
  MachineAuthorizationStarted,
  validateMachineAuthorizationBody,
} from '@app/contracts';
import {
  approverRefusal,
  approverStandingRefusal,
  bindsMachineAtPoll,
  capacityRefusal,
  CREDENTIAL_UNAVAILABLE_MESSAGE,
  decisionVerdict,
  lookupVerdict,
  lostConsumptionRefusal,
  pollBudgetRefusal,
  pollVerdict,
  requestTargetGone,
  REVOKED_PARENT_REFUSAL,
} from '@app/core';

import { actingCredential, AuthenticatedActor, organizationScope } from '../auth/actor';
import { generateToken, hashToken, MACHINE_CREDENTIAL_PREFIX, tokenDisplayPrefix } from '../auth/tokens';
import { DomainError } from '../common/domain-error';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { oidcSettings } from '../oidc/oidc-settings';
import { decisionOf, toRecordResponse, toStartedResponse } from './dto/machine-authorization.dto';
import {
  codeMismatch,
  maError,
  MaCode,
  refusalError,
  requestGone,
  resolveRateLimited,
  unknownCode,
} from './machine-authorization.errors';
import { AuthorizationRow, MachineAuthorizationRepository } from './machine-authorization.repository';
import {
  CLIENT_CAPACITY,
  FAILED_LOOKUPS_PER_ACTOR_PER_MINUTE,
  FAILED_LOOKUPS_PER_CLIENT_PER_MINUTE,
  NETWORK_CAPACITY,
  WIDE_NETWORK_CAPACITY,
  POLLS_PER_MINUTE,
  RATE_SCOPES,
  SERVER_CAPACITY,
} from './limits';
import { RateLimitRepository } from './rate-limit.repository';
import { RequestIdentity } from './request-identity';
import { ServerSecretService } from '../config/server-secret.service';
import { canonicalUserCode, deviceCodeDigest, generateDeviceCode, generateUserCode, userCodeDigest } from './user-code';

export interface BodyRequest {
  body: unknown;
  contentType: string | undefined;
}

interface ApproverScope {
  organizationId: number | null;
}

const REQUEST_ID = /^mr_[0-9a-f]{32}$/;
const JSON_TYPE = /^application\/json\s*(;|$)/i;
const UNIQUE_VIOLATION = '23505';

class UnknownCode {}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

@Injectable()
export class MachineAuthorizationService {
  private readonly logger = new Logger(MachineAuthorizationService.name);
  private readonly secret: Buffer;
  private readonly hosted: boolean;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: MachineAuthorizationRepository,
    private readonly counters: RateLimitRepository,
    serverSecret: ServerSecretService,
  ) {
    this.secret = serverSecret.value;
    this.hosted = config.mode === 'hosted';
  }

  userCodeHash(canonical: string): Buffer {
    return userCodeDigest(this.secret, canonical);
  }

  discovery(): MachineAuthorizationDiscovery {
    const oidc = oidcSettings(this.config);
    if (oidc.state === 'misconfigured') throw maError(MaCode.OidcMisconfigured, oidc.problem);
    return { device_code: true, company_sign_in: oidc.state === 'configured' };
  }

  async poolUse(): Promise<{ open: number; capacity: number }> {
    return { open: await this.repository.openCodes(), capacity: SERVER_CAPACITY };
  }

  async start(
    request: BodyRequest,
    identity: RequestIdentity,
    slug: string | null,
  ): Promise<MachineAuthorizationStarted> {
    const organization = await this.startOrganization(slug);
    let machineId = '';
    let machineName = '';
    if (this.hosted) {
      this.parseBody('MachineAuthorizationCloudStartRequest', request);
    } else {
      const body = this.parseBody('MachineAuthorizationStartRequest', request);
      machineId = body.machine_id;
      machineName = body.machine_name;
    }
    for (let attempt = 0; ; attempt += 1) {
      const deviceCode = generateDeviceCode();
      const userCode = generateUserCode();
      try {
        const result = await this.repository.insertWithinCapacity({
          deviceCodeHash: deviceCodeDigest(deviceCode),
          userCodeHash: this.userCodeHash(userCode),
          clientKey: identity.clientKey,
          networkKey: identity.networkKey,
          wideNetworkKey: identity.wideNetworkKey,
          machineId,
          machineName,
          origin: identity.origin,
          organizationId: organization?.id ?? null,
        });
        if (result.inserted) return toStartedResponse(identity.origin, deviceCode, userCode);
        throw refusalError(
          capacityRefusal(result, identity, {
            client: CLIENT_CAPACITY,
            network: NETWORK_CAPACITY,
            wideNetwork: WIDE_NETWORK_CAPACITY,
          }),
        );
      } catch (err) {
        // A user-code collision among live codes: draw again (rare; 20^8 codes).
        if ((err as { code?: string }).code === UNIQUE_VIOLATION && attempt < 3) continue;
        throw err;
      }
    }
  }

  async poll(
    request: BodyRequest,
    identity: RequestIdentity,
    slug: string | null,
  ): Promise<MachineAuthorizationApproved> {
    let body: MachineAuthorizationModels['MachineAuthorizationPollRequest'];
    try {
      this.assertModeOf(slug);
      body = this.parseBody('MachineAuthorizationPollRequest', request);
    } catch (err) {
      await this.spendPollBudget(identity);
      throw err;
    }
    identity.pollBudgetSpent = true;
    const spent = await this.repository.spendPollAndFind(
      RATE_SCOPES.poll,
      identity.clientKey,
      deviceCodeDigest(body.device_code),
    );
    const throttled = pollBudgetRefusal(spent, POLLS_PER_MINUTE);
    if (throttled) throw refusalError(throttled);
    let row = spent.row;
    if (row && slug !== null && row.organizationSlug !== slug) row = null;
    if (row && bindsMachineAtPoll(row)) {
      await this.repository.bindMachine(row.id, body.machine_id, body.machine_name);
      row = (await this.repository.findByDeviceCode(deviceCodeDigest(body.device_code)))!;
    }
    const verdict = pollVerdict(row && { decision: decisionOf(row), machineId: row.machineId }, body.machine_id);
    if ('refuse' in verdict) throw refusalError(verdict.refuse);
    return this.consume(row!, body.device_code, identity);
  }

  async get(
    code: string,
    actor: AuthenticatedActor,
    identity: RequestIdentity,
    slug: string | null,
  ): Promise<MachineAuthorizationRecord> {
    const canonical = this.canonical(code);
    const scope = await this.approverScope(actor, slug);
    await this.assertLookupBudget(actor, identity);
    const row = await this.repository.findByUserCode(this.userCodeHash(canonical));
    if (!row) return this.failLookup(actor, identity);
    const verdict = lookupVerdict({
      visible: await this.visible(row, actor, scope),
      decision: decisionOf(row),
      decidedByCaller: row.decidedBy === actor.id,
    });
    if (verdict === 'unknown') return this.failLookup(actor, identity);
    if (verdict !== 'show') throw refusalError(verdict.refuse);
    return toRecordResponse(canonical, row);
  }

  async resolve(
    request: BodyRequest,
    actor: AuthenticatedActor,
    identity: RequestIdentity,
    slug: string | null,
  ): Promise<MachineAuthorizationResolveResponse> {
    const body = this.parseBody('MachineAuthorizationResolveRequest', request);
    const canonical = this.canonical(body.code);
    const scope = await this.approverScope(actor, slug);
    await this.assertLookupBudget(actor, identity);
    const wanted = body.action === 'approve' ? 'approved' : 'denied';
    const outcome = await this.repository.transaction(async (manager) => {
      const row = await this.repository.findByUserCode(this.userCodeHash(canonical), manager, true);
      if (!row || !(await this.visible(row, actor, scope))) return new UnknownCode();
      return this.decide(manager, row, wanted, actor, scope, canonical);
    });
    if (outcome instanceof UnknownCode) return this.failLookup(actor, identity);
    return outcome;
  }

  // Self-host: the server organization's, for its active members. Hosted: the organizations the caller admins, plus
  // unbound codes (one slug's when scoped). Claimed requests show to their claimer only.
  async pendingRequests(actor: AuthenticatedActor, slug: string | null): Promise<MachineAuthorizationRequestList> {
    let organizationIds: number[];
    let includeUnbound: boolean;
    const confined = organizationScope(actor);
    if (!this.hosted) {
      this.assertModeOf(slug);
      const organization = await this.repository.soleOrganization();
      const membership = organization ? await this.repository.membership(actor.id, organization.id) : null;
      organizationIds = organization && membership?.status === 'active' ? [organization.id] : [];
      includeUnbound = false;
    } else if (slug !== null) {
      organizationIds = [(await this.approverScope(actor, slug)).organizationId!];
      includeUnbound = true;
    } else {
      organizationIds = await this.repository.activeOrganizations(actor.id, 'admin');
      includeUnbound = organizationIds.length > 0;
    }
    // A confined credential sees only its organization's requests (and, hosted, the unbound ones it may bind there).
    if (confined !== null && !organizationIds.includes(confined)) {
      organizationIds = [];
      includeUnbound = false;
    } else if (confined !== null) {
      organizationIds = [confined];
    }
    const rows = await this.repository.pendingRequests({ actorId: actor.id, organizationIds, includeUnbound });
    return {
      requests: rows.map((r) => ({
        request_id: r.request_id,
        machine_name: r.machine_name,
        machine_id: r.machine_id,
        client_address: r.client_key,
        org: r.org,
        created_at: r.created_at.toISOString(),
        expires_at: r.expires_at.toISOString(),
        claimed_by_caller: r.claimed_by_caller,
      })),
    };
  }

  // resolve bound to one listed request: a code of another request decides nothing (409).
  async resolveRequest(
    requestId: string,
    request: BodyRequest,
    actor: AuthenticatedActor,
    identity: RequestIdentity,
    slug: string | null,
  ): Promise<MachineAuthorizationResolveResponse> {
    const body = this.parseBody('MachineAuthorizationResolveRequest', request);
    const canonical = this.canonical(body.code);
    const scope = await this.approverScope(actor, slug);
    await this.assertLookupBudget(actor, identity);
    if (!REQUEST_ID.test(requestId)) throw requestGone();
    const wanted = body.action === 'approve' ? 'approved' : 'denied';
    const outcome = await this.repository.transaction(async (manager) => {
      const { target, code } = await this.repository.lockRequestAndCode(
        manager,
        requestId,
        this.userCodeHash(canonical),
      );
      if (
        !target ||
        requestTargetGone({
          visible: await this.visible(target, actor, scope),
          decision: decisionOf(target),
          decidedByCaller: target.decidedBy === actor.id,
        })
      ) {
        throw requestGone();
      }
      if (!code || !(await this.visible(code, actor, scope))) return new UnknownCode();
      if (code.id !== target.id) throw codeMismatch();
      return this.decide(manager, target, wanted, actor, scope, canonical);
    });
    if (outcome instanceof UnknownCode) return this.failLookup(actor, identity);
    return outcome;
  }

  // Deny without typing the code (a request nobody expected); approving still needs it. No lookup budget is spent.
  async denyRequest(
    requestId: string,
    actor: AuthenticatedActor,
    slug: string | null,
  ): Promise<MachineAuthorizationRequestDenyResponse> {
    const scope = await this.approverScope(actor, slug);
    if (!REQUEST_ID.test(requestId)) throw requestGone();
    const outcome = await this.repository.transaction(async (manager) => {
      const target = await this.repository.lockRequest(manager, requestId);
      if (!target || !(await this.visible(target, actor, scope))) throw requestGone();
      return this.decide(manager, target, 'denied', actor, scope, '');
    });
    if (outcome instanceof UnknownCode) throw requestGone();
    return { request_id: requestId, decision: 'denied' };
  }

  private async decide(
    manager: EntityManager,
    row: AuthorizationRow,
    wanted: 'approved' | 'denied',
    actor: AuthenticatedActor,
    scope: ApproverScope,
    code: string,
  ): Promise<MachineAuthorizationResolveResponse | UnknownCode> {
    const verdict = decisionVerdict({
      decision: decisionOf(row),
      decidedByCaller: row.decidedBy === actor.id,
      wanted,
      organizationId: row.organizationId ?? scope.organizationId,
    });
    if (verdict === 'unknown') return new UnknownCode();
    if ('refuse' in verdict) throw refusalError(verdict.refuse);
    if ('answer' in verdict) return { code, decision: verdict.answer };
    const { organizationId } = verdict.record;
    if (
      !(await this.repository.recordDecision(
        manager,
        row.id,
        wanted,
        actor.id,
        organizationId,
        actingCredential(actor),
      ))
    ) {
      return new UnknownCode();
    }
    return { code, decision: wanted };
  }

  private async consume(
    row: AuthorizationRow,
    deviceCode: string,
    identity: RequestIdentity,
  ): Promise<MachineAuthorizationApproved> {
    const token = generateToken(MACHINE_CREDENTIAL_PREFIX);
    let slug: string | null;
    try {
      slug = await this.repository.transaction(async (manager) => {
        const consumed = await this.repository.markConsumed(manager, row.id, row.machineId);
        if (!consumed) return null;
        const standing = await this.repository.approverStanding(manager, consumed.decidedBy, consumed.organizationId);
        const refused = approverStandingRefusal({ hosted: this.hosted, ...standing });
        if (refused) throw refusalError(refused);
        // Approved with a credential: the machine's is its child (expires no later, revoked with it).
        const lineage = consumed.parent
          ? await this.repository.liveParent(manager, consumed.parent, {
              machineId: row.machineId,
              organizationId: consumed.organizationId,
            })
          : { parent: null, expiresAt: null };
        if (lineage === null) throw refusalError(REVOKED_PARENT_REFUSAL);
        await this.repository.issueCredential(manager, {
          ...lineage,
          authorizationId: row.id,
          machineId: row.machineId,
          machineName: consumed.machineName,
          actorId: consumed.decidedBy!,
          organizationId: consumed.organizationId,
          tokenHash: hashToken(token),
          tokenPrefix: tokenDisplayPrefix(token),
        });
        return standing.slug;
      });
    } catch (err) {
      if (err instanceof DomainError) throw err;
      this.logger.warn(`credential issuance failed, approval kept: ${(err as Error).message}`);
      throw maError(MaCode.MachineCredentialUnavailable, CREDENTIAL_UNAVAILABLE_MESSAGE);
    }
    if (slug === null) {
      const lost = lostConsumptionRefusal(await this.repository.findByDeviceCode(deviceCodeDigest(deviceCode)));
      if (lost === 'retry') throw maError(MaCode.MachineCredentialUnavailable, CREDENTIAL_UNAVAILABLE_MESSAGE);
      throw refusalError(lost);
    }
    return {
      token,
      org: slug,
      api_url: this.hosted ? `${identity.origin}/api/orgs/${slug}` : identity.origin,
    };
  }

  private async startOrganization(slug: string | null): Promise<{ id: number } | null> {
    this.assertModeOf(slug);
    if (slug !== null) {
      const organization = await this.repository.organizationBySlug(slug);
      if (!organization) throw maError(MaCode.NotFound, 'no such organization');
      return organization;
    }
    if (this.hosted) return null;
    const organization = await this.repository.soleOrganization();
    if (!organization) throw maError(MaCode.InternalError, 'the server has no organization yet');
    return organization;
  }

  // Self-host answers at the origin, hosted at /api/orgs/<slug> (and unscoped: organization chosen at approval).
  private assertModeOf(slug: string | null): void {
    if (slug !== null && !this.hosted)
      throw maError(MaCode.NotFound, 'this self-hosted server has no organization paths');
  }

  // A confined credential decides only its organization's codes.
  private async approverScope(actor: AuthenticatedActor, slug: string | null): Promise<ApproverScope> {
    this.assertModeOf(slug);
    const confined = organizationScope(actor);
    if (!this.hosted) {
      const organization = await this.repository.soleOrganization();
      const membership = organization ? await this.repository.membership(actor.id, organization.id) : null;
      const refused = approverRefusal({ hosted: false, organization, membership, confinedTo: confined });
      if (refused) throw refusalError(refused);
      return { organizationId: organization!.id };
    }
    if (slug === null && confined === null) return { organizationId: null };
    const organization =
      slug === null
        ? await this.repository.organizationById(confined!)
        : await this.repository.organizationBySlug(slug);
    if (!organization) throw maError(MaCode.NotFound, 'no such organization');
    const membership = await this.repository.membership(actor.id, organization.id);
    const refused = approverRefusal({ hosted: true, organization, membership, confinedTo: confined });
    if (refused) throw refusalError(refused);
    return { organizationId: organization.id };
  }

  private async visible(row: AuthorizationRow, actor: AuthenticatedActor, scope: ApproverScope): Promise<boolean> {
    if (!this.hosted || scope.organizationId !== null) {
      return row.organizationId === scope.organizationId || (this.hosted && row.organizationId === null);
    }
    if (row.organizationId === null) return this.repository.isAdminOfAnyOrganization(actor.id);
    const membership = await this.repository.membership(actor.id, row.organizationId);
    return membership?.status === 'active' && membership.role === 'admin';
  }

  private canonical(code: string): string {
    const canonical = canonicalUserCode(code);
    if (!canonical) throw maError(MaCode.InvalidRequest, 'a code has eight letters such as BCDF-GHJK');
    return canonical;
  }

  // A refused poll spends its budget too, and over the budget the refusal is the 429.
  private async spendPollBudget(identity: RequestIdentity): Promise<void> {
    if (identity.pollBudgetSpent === false) {
      identity.pollBudgetSpent = true;
      const throttled = pollBudgetRefusal(
        await this.counters.hit(RATE_SCOPES.poll, identity.clientKey),
        POLLS_PER_MINUTE,
      );
      if (throttled) throw refusalError(throttled);
    }
  }

  private async assertLookupBudget(actor: AuthenticatedActor, identity: RequestIdentity): Promise<void> {
    const [byActor, byClient] = await Promise.all([
      this.counters.peek(RATE_SCOPES.lookupFailActor, [String(actor.id)]),
      this.counters.peek(RATE_SCOPES.lookupFailClient, [identity.clientKey]),
    ]);
    if (byActor.hits >= FAILED_LOOKUPS_PER_ACTOR_PER_MINUTE || byClient.hits >= FAILED_LOOKUPS_PER_CLIENT_PER_MINUTE) {
      const retryAfter = Math.max(byActor.retryAfter, byClient.retryAfter);
      throw resolveRateLimited(retryAfter);
    }
  }

  // Unknown, expired and used codes answer alike, and each such answer spends the failed-lookup budgets.
  private async failLookup(actor: AuthenticatedActor, identity: RequestIdentity): Promise<never> {
    await Promise.all([
      this.counters.hit(RATE_SCOPES.lookupFailActor, String(actor.id)),
      this.counters.hit(RATE_SCOPES.lookupFailClient, identity.clientKey),
    ]);
    throw unknownCode();
  }

  private parseBody<N extends MachineAuthorizationModelName>(
    model: N,
    request: BodyRequest,
  ): MachineAuthorizationModels[N] {
    if (!request.contentType || !JSON_TYPE.test(request.contentType)) {
      throw maError(MaCode.UnsupportedMediaType, 'content type must be application/json');
    }
    const { body } = request;
    if (!isPlainObject(body)) throw maError(MaCode.InvalidRequest, 'request body must be a JSON object');
    if (model === 'MachineAuthorizationStartRequest' || model === 'MachineAuthorizationPollRequest') {
      const missing = ['machine_id', 'machine_name'].filter((field) => body[field] === undefined || body[field] === '');
      if (missing.length > 0) {
        throw maError(
          MaCode.MachineIdentityRequired,
          `${missing.join(' and ')} required: svc connect sends this machine's id and name`,
        );
      }
    }
    const result = validateMachineAuthorizationBody(model, body);
    if (!result.ok) throw maError(MaCode.InvalidRequest, result.errors.join('; '));
    return result.value;
  }
}
