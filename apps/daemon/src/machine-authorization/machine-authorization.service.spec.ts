import { MACHINE_AUTHORIZATION_REFUSAL_CODES } from '@app/core';

import { testActor } from '../auth/test-actor';
import { refusal } from '../common/test-refusal';
import { AppConfig } from '../config/app-config';
import { ServerSecretService } from '../config/server-secret.service';
import { MaCode } from './machine-authorization.errors';
import { AuthorizationRow, MachineAuthorizationRepository } from './machine-authorization.repository';
import { MachineAuthorizationService } from './machine-authorization.service';
import { RateLimitRepository } from './rate-limit.repository';
import { RequestIdentity } from './request-identity';
import { generateDeviceCode } from './user-code';

const ORG = { id: 1, slug: 'default' };
const ACTOR = testActor({ credentialId: 11 });
const CODE = 'BCDF-GHJK';
const json = (body: unknown) => ({ body, contentType: 'application/json' });
const identity = (): RequestIdentity => ({
  clientKey: '10.0.0.5',
  networkKey: '10.0.0.0/24',
  wideNetworkKey: '10.0.0.0/16',
  origin: 'http://svc.test',
  pollBudgetSpent: false,
});
const row = (over: Partial<AuthorizationRow> = {}): AuthorizationRow => ({
  id: '42',
  status: 'pending',
  live: true,
  machineId: 'm-1',
  machineName: 'laptop',
  organizationId: ORG.id,
  organizationSlug: ORG.slug,
  decidedBy: null,
  expiresAt: new Date('2030-01-01T00:00:00Z'),
  ...over,
});

function makeSut(mode: 'self-host' | 'hosted' = 'self-host') {
  const repository = {
    transaction: jest.fn(async <T>(work: (manager: unknown) => Promise<T>) => work({})),
    soleOrganization: jest.fn(async () => ORG as { id: number; slug: string } | null),
    organizationBySlug: jest.fn(async (_slug: string) => ORG as { id: number; slug: string } | null),
    organizationById: jest.fn(async (_id: number) => ORG),
    membership: jest.fn(async () => ({ role: 'member', status: 'active' }) as { role: string; status: string } | null),
    isAdminOfAnyOrganization: jest.fn(async () => false),
    activeOrganizations: jest.fn(async () => [] as number[]),
    insertWithinCapacity: jest.fn(),
    spendPollAndFind: jest.fn(async () => ({ hits: 1, retryAfter: 30, row: row() as AuthorizationRow | null })),
    bindMachine: jest.fn(async () => undefined),
    findByDeviceCode: jest.fn(async () => row() as AuthorizationRow | null),
    findByUserCode: jest.fn(async () => row() as AuthorizationRow | null),
    recordDecision: jest.fn(async () => true),
    markConsumed: jest.fn(async () => ({
      decidedBy: ACTOR.id,
      organizationId: ORG.id,
      machineName: 'laptop',
      parent: null as null | { via: string; id: number },
    })),
    approverStanding: jest.fn(async () => ({
      actorStatus: 'active',
      membershipStatus: 'active',
      role: 'member',
      slug: ORG.slug,
    })),
    liveParent: jest.fn(),
    issueCredential: jest.fn(async () => undefined),
    pendingRequests: jest.fn(async () => []),
    lockRequestAndCode: jest.fn(),
    lockRequest: jest.fn(),
    openCodes: jest.fn(async () => 5),
  };
  const counters = {
    hit: jest.fn(async () => ({ hits: 1, retryAfter: 30 })),
    peek: jest.fn(async () => ({ hits: 0, retryAfter: 60 })),
  };
  const config = { mode, oidc: {} } as unknown as AppConfig;
  const sut = new MachineAuthorizationService(
    config,
    repository as unknown as MachineAuthorizationRepository,
    counters as unknown as RateLimitRepository,
    { value: Buffer.alloc(32, 7) } as ServerSecretService,
  );
  return { sut, repository, counters };
}

describe(MachineAuthorizationService.name, () => {
  describe('start', () => {
    const body = json({ machine_id: 'm-1', machine_name: 'laptop' });

    it('should answer the codes when the pools have room', async () => {
      const { sut, repository } = makeSut();
      repository.insertWithinCapacity.mockResolvedValue({ inserted: { id: '1', expiresAt: new Date() } });
      const started = await sut.start(body, identity(), null);
      expect(started.verification_uri_complete).toBe(`http://svc.test/machine-approval/${started.user_code}`);
      expect(repository.insertWithinCapacity).toHaveBeenCalledWith(
        expect.objectContaining({ machineId: 'm-1', organizationId: ORG.id, clientKey: '10.0.0.5' }),
      );
    });

    it("should refuse with the client code when the client's pool is full", async () => {
      const { sut, repository } = makeSut();
      repository.insertWithinCapacity.mockResolvedValue({
        inserted: null,
        clientOpen: 8,
        networkOpen: 8,
        wideNetworkOpen: 8,
        serverOpen: 8,
      });
      expect(await refusal(sut.start(body, identity(), null))).toMatchObject({
        code: 'authorization_client_capacity',
      });
    });

    it('should refuse with the server code when only the server pool is full', async () => {
      const { sut, repository } = makeSut();
      repository.insertWithinCapacity.mockResolvedValue({
        inserted: null,
        clientOpen: 0,
        networkOpen: 0,
        wideNetworkOpen: 0,
        serverOpen: 128,
      });
      expect(await refusal(sut.start(body, identity(), null))).toMatchObject({ code: 'authorization_capacity' });
    });

    it('should draw again when a user code collides', async () => {
      const { sut, repository } = makeSut();
      repository.insertWithinCapacity
        .mockRejectedValueOnce(Object.assign(new Error('duplicate'), { code: '23505' }))
        .mockResolvedValue({ inserted: { id: '1', expiresAt: new Date() } });
      await sut.start(body, identity(), null);
      expect(repository.insertWithinCapacity).toHaveBeenCalledTimes(2);
    });

    it('should refuse a self-host start without the machine identity', async () => {
      const { sut, repository } = makeSut();
      expect(await refusal(sut.start(json({}), identity(), null))).toMatchObject({
        code: 'machine_identity_required',
      });
      expect(repository.insertWithinCapacity).not.toHaveBeenCalled();
    });

    it('should refuse organization paths on a self-hosted server', async () => {
      const { sut } = makeSut();
      expect(await refusal(sut.start(body, identity(), 'acme'))).toMatchObject({ code: 'not_found' });
    });
  });

  describe('poll', () => {
    const body = json({ device_code: generateDeviceCode(), machine_id: 'm-1', machine_name: 'laptop' });

    it('should keep the machine waiting while the code is pending', async () => {
      const { sut } = makeSut();
      expect(await refusal(sut.poll(body, identity(), null))).toMatchObject({ code: 'authorization_pending' });
    });

    it('should throttle with Retry-After when the poll budget is spent', async () => {
      const { sut, repository } = makeSut();
      repository.spendPollAndFind.mockResolvedValue({ hits: 121, retryAfter: 9, row: row() });
      const err = await refusal(sut.poll(body, identity(), null));
      expect(err).toMatchObject({ code: 'authorization_poll_rate_limited', headers: { 'retry-after': '9' } });
    });

    it('should spend the poll budget on a malformed poll too', async () => {
      const { sut, counters } = makeSut();
      expect(await refusal(sut.poll(json({ device_code: 'dc' }), identity(), null))).toMatchObject({
        code: 'machine_identity_required',
      });
      expect(counters.hit).toHaveBeenCalledWith('machine_auth_poll', '10.0.0.5');
    });

    it.each([
      ['denied', true, 'authorization_denied'],
      ['consumed', true, 'authorization_consumed'],
      ['pending', false, 'authorization_expired'],
    ] as const)('should answer a %s code (live %s) with %s', async (status, live, code) => {
      const { sut, repository } = makeSut();
      repository.spendPollAndFind.mockResolvedValue({ hits: 1, retryAfter: 1, row: row({ status, live }) });
      expect(await refusal(sut.poll(body, identity(), null))).toMatchObject({ code, status: 410 });
    });

    it('should refuse another machine polling the code', async () => {
      const { sut, repository } = makeSut();
      repository.spendPollAndFind.mockResolvedValue({ hits: 1, retryAfter: 1, row: row({ machineId: 'm-2' }) });
      expect(await refusal(sut.poll(body, identity(), null))).toMatchObject({ code: 'machine_identity_mismatch' });
    });

    it('should bind a code started without a machine to its first poller', async () => {
      const { sut, repository } = makeSut();
      repository.spendPollAndFind.mockResolvedValue({ hits: 1, retryAfter: 1, row: row({ machineId: '' }) });
      await refusal(sut.poll(body, identity(), null));
      expect(repository.bindMachine).toHaveBeenCalledWith('42', 'm-1', 'laptop');
    });

    it('should issue the credential once for an approved code', async () => {
      const { sut, repository } = makeSut();
      repository.spendPollAndFind.mockResolvedValue({
        hits: 1,
        retryAfter: 1,
        row: row({ status: 'approved', decidedBy: ACTOR.id }),
      });
      const approved = await sut.poll(body, identity(), null);
      expect(approved).toEqual({ token: expect.any(String), org: 'default', api_url: 'http://svc.test' });
      expect(repository.issueCredential).toHaveBeenCalledWith(
        expect.anything(),
        expect.objectContaining({ machineId: 'm-1', actorId: ACTOR.id, organizationId: ORG.id }),
      );
    });

    it('should refuse issuance when the approver was disabled since', async () => {
      const { sut, repository } = makeSut();
      repository.spendPollAndFind.mockResolvedValue({ hits: 1, retryAfter: 1, row: row({ status: 'approved' }) });
      repository.approverStanding.mockResolvedValue({
        actorStatus: 'disabled',
        membershipStatus: 'active',
        role: 'member',
        slug: ORG.slug,
      });
      expect(await refusal(sut.poll(body, identity(), null))).toMatchObject({ code: 'actor_disabled' });
      expect(repository.issueCredential).not.toHaveBeenCalled();
    });

    it('should refuse issuance when the credential it was approved with is revoked', async () => {
      const { sut, repository } = makeSut();
      repository.spendPollAndFind.mockResolvedValue({ hits: 1, retryAfter: 1, row: row({ status: 'approved' }) });
      repository.markConsumed.mockResolvedValue({
        decidedBy: ACTOR.id,
        organizationId: ORG.id,
        machineName: 'laptop',
        parent: { via: 'api_token', id: 11 },
      });
      repository.liveParent.mockResolvedValue(null);
      expect(await refusal(sut.poll(body, identity(), null))).toMatchObject({ code: 'machine_credential_refused' });
    });

    it('should answer consumed when another poll consumed the code first', async () => {
      const { sut, repository } = makeSut();
      repository.spendPollAndFind.mockResolvedValue({ hits: 1, retryAfter: 1, row: row({ status: 'approved' }) });
      repository.markConsumed.mockResolvedValue(null as never);
      repository.findByDeviceCode.mockResolvedValue(row({ status: 'consumed' }));
      expect(await refusal(sut.poll(body, identity(), null))).toMatchObject({ code: 'authorization_consumed' });
    });

    it('should keep the approval retryable when issuance fails in the database', async () => {
      const { sut, repository } = makeSut();
      repository.spendPollAndFind.mockResolvedValue({ hits: 1, retryAfter: 1, row: row({ status: 'approved' }) });
      repository.issueCredential.mockRejectedValue(new Error('connection reset'));
      expect(await refusal(sut.poll(body, identity(), null))).toMatchObject({
        code: 'machine_credential_unavailable',
        status: 503,
      });
    });
  });

  describe('get', () => {
    it('should show a pending code to a member', async () => {
      const { sut } = makeSut();
      expect(await sut.get(CODE, ACTOR, identity(), null)).toMatchObject({ code: CODE, decision: 'pending' });
    });

    it('should refuse a person who is not an active member', async () => {
      const { sut, repository } = makeSut();
      repository.membership.mockResolvedValue(null);
      expect(await refusal(sut.get(CODE, ACTOR, identity(), null))).toMatchObject({
        code: 'organization_membership_required',
      });
    });

    it("should answer another person's approved code as claimed", async () => {
      const { sut, repository } = makeSut();
      repository.findByUserCode.mockResolvedValue(row({ status: 'approved', decidedBy: 99 }));
      expect(await refusal(sut.get(CODE, ACTOR, identity(), null))).toMatchObject({ code: 'authorization_claimed' });
    });

    it('should spend the failed-lookup budgets on an unknown code', async () => {
      const { sut, repository, counters } = makeSut();
      repository.findByUserCode.mockResolvedValue(null);
      expect(await refusal(sut.get(CODE, ACTOR, identity(), null))).toMatchObject({ code: 'not_found' });
      expect(counters.hit).toHaveBeenCalledWith('machine_auth_lookup_fail_actor', '3');
      expect(counters.hit).toHaveBeenCalledWith('machine_auth_lookup_fail_client', '10.0.0.5');
    });

    it('should refuse lookups once the failed-lookup budget is spent', async () => {
      const { sut, repository, counters } = makeSut();
      counters.peek.mockResolvedValue({ hits: 10, retryAfter: 12 });
      expect(await refusal(sut.get(CODE, ACTOR, identity(), null))).toMatchObject({
        code: 'authorization_resolve_rate_limited',
        headers: { 'retry-after': '12' },
      });
      expect(repository.findByUserCode).not.toHaveBeenCalled();
    });

    it('should refuse a malformed code before any lookup', async () => {
      const { sut, repository } = makeSut();
      expect(await refusal(sut.get('nope', ACTOR, identity(), null))).toMatchObject({ code: 'invalid_request' });
      expect(repository.findByUserCode).not.toHaveBeenCalled();
    });
  });

  describe('resolve', () => {
    it('should record an approval of a pending code in its organization', async () => {
      const { sut, repository } = makeSut();
      expect(await sut.resolve(json({ code: CODE, action: 'approve' }), ACTOR, identity(), null)).toEqual({
        code: CODE,
        decision: 'approved',
      });
      expect(repository.recordDecision).toHaveBeenCalledWith({}, '42', 'approved', ACTOR.id, ORG.id, {
        via: 'api_token',
        id: 11,
      });
    });

    it('should repeat the answer of a second equal decision without recording it', async () => {
      const { sut, repository } = makeSut();
      repository.findByUserCode.mockResolvedValue(row({ status: 'approved', decidedBy: ACTOR.id }));
      expect(await sut.resolve(json({ code: CODE, action: 'approve' }), ACTOR, identity(), null)).toEqual({
        code: CODE,
        decision: 'approved',
      });
      expect(repository.recordDecision).not.toHaveBeenCalled();
    });

    it('should refuse a change of mind', async () => {
      const { sut, repository } = makeSut();
      repository.findByUserCode.mockResolvedValue(row({ status: 'approved', decidedBy: ACTOR.id }));
      expect(await refusal(sut.resolve(json({ code: CODE, action: 'deny' }), ACTOR, identity(), null))).toMatchObject({
        code: 'authorization_already_decided',
      });
    });

    it("should refuse a second approver of another person's code", async () => {
      const { sut, repository } = makeSut();
      repository.findByUserCode.mockResolvedValue(row({ status: 'denied', decidedBy: 99 }));
      expect(
        await refusal(sut.resolve(json({ code: CODE, action: 'approve' }), ACTOR, identity(), null)),
      ).toMatchObject({ code: 'authorization_claimed' });
    });

    it('should answer unknown when the conditional write finds the code decided meanwhile', async () => {
      const { sut, repository } = makeSut();
      repository.recordDecision.mockResolvedValue(false);
      expect(
        await refusal(sut.resolve(json({ code: CODE, action: 'approve' }), ACTOR, identity(), null)),
      ).toMatchObject({ code: 'not_found' });
    });

    it('should hosted, unscoped, ask for an organization when the code names none', async () => {
      const { sut, repository } = makeSut('hosted');
      repository.findByUserCode.mockResolvedValue(row({ organizationId: null, organizationSlug: null }));
      repository.isAdminOfAnyOrganization.mockResolvedValue(true);
      expect(
        await refusal(sut.resolve(json({ code: CODE, action: 'approve' }), ACTOR, identity(), null)),
      ).toMatchObject({ code: 'invalid_request' });
    });

    it('should hosted refuse a member who is no admin of the path’s organization', async () => {
      const { sut } = makeSut('hosted');
      expect(
        await refusal(sut.resolve(json({ code: CODE, action: 'approve' }), ACTOR, identity(), 'default')),
      ).toMatchObject({ code: 'organization_membership_required' });
    });
  });

  describe('resolveRequest', () => {
    const REQUEST = `mr_${'a'.repeat(32)}`;

    it('should refuse a code of another request', async () => {
      const { sut, repository } = makeSut();
      repository.lockRequestAndCode.mockResolvedValue({ target: row(), code: row({ id: '43' }) });
      expect(
        await refusal(sut.resolveRequest(REQUEST, json({ code: CODE, action: 'approve' }), ACTOR, identity(), null)),
      ).toMatchObject({ code: 'authorization_code_mismatch' });
      expect(repository.recordDecision).not.toHaveBeenCalled();
    });

    it("should answer gone for another person's used request", async () => {
      const { sut, repository } = makeSut();
      repository.lockRequestAndCode.mockResolvedValue({
        target: row({ status: 'consumed', decidedBy: 99 }),
        code: row(),
      });
      expect(
        await refusal(sut.resolveRequest(REQUEST, json({ code: CODE, action: 'approve' }), ACTOR, identity(), null)),
      ).toMatchObject({ code: 'not_found' });
    });

    it('should refuse a malformed request id before any lookup', async () => {
      const { sut, repository } = makeSut();
      await refusal(sut.resolveRequest('mr_x', json({ code: CODE, action: 'approve' }), ACTOR, identity(), null));
      expect(repository.lockRequestAndCode).not.toHaveBeenCalled();
    });
  });

  describe('denyRequest', () => {
    it('should deny a pending request without its code', async () => {
      const { sut, repository } = makeSut();
      repository.lockRequest.mockResolvedValue(row());
      expect(await sut.denyRequest(`mr_${'b'.repeat(32)}`, ACTOR, null)).toEqual({
        request_id: `mr_${'b'.repeat(32)}`,
        decision: 'denied',
      });
      expect(repository.recordDecision).toHaveBeenCalledWith({}, '42', 'denied', ACTOR.id, ORG.id, expect.anything());
    });
  });

  describe('pendingRequests', () => {
    it('should list nothing to a confined credential of another organization', async () => {
      const { sut, repository } = makeSut();
      await sut.pendingRequests({ ...ACTOR, organizationId: 2 }, null);
      expect(repository.pendingRequests).toHaveBeenCalledWith({
        actorId: ACTOR.id,
        organizationIds: [],
        includeUnbound: false,
      });
    });

    it("should list the server organization's requests to an active member", async () => {
      const { sut, repository } = makeSut();
      await sut.pendingRequests(ACTOR, null);
      expect(repository.pendingRequests).toHaveBeenCalledWith({
        actorId: ACTOR.id,
        organizationIds: [ORG.id],
        includeUnbound: false,
      });
    });
  });

  describe('discovery', () => {
    it('should refuse when company sign-in is partly configured', () => {
      const { sut } = makeSut();
      (sut as unknown as { config: AppConfig }).config.oidc = { issuer: 'https://id.test' } as AppConfig['oidc'];
      expect(() => sut.discovery()).toThrow(expect.objectContaining({ code: 'oidc_misconfigured' }));
    });

    it('should offer device codes without company sign-in when none is configured', () => {
      expect(makeSut().sut.discovery()).toEqual({ device_code: true, company_sign_in: false });
    });
  });
});

describe('rulebook refusal codes', () => {
  it.each(MACHINE_AUTHORIZATION_REFUSAL_CODES)('should be a contract code: %s', (code) => {
    expect(Object.values(MaCode)).toContain(code);
  });
});
