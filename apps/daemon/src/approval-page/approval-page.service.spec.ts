import type { FastifyRequest } from 'fastify';

import { AccessService } from '../auth/access.service';
import { AuthenticatedActor } from '../auth/actor';
import { testActor } from '../auth/test-actor';
import { hashToken } from '../auth/tokens';
import { ServerSecretService } from '../config/server-secret.service';
import { MachineAuthorizationService } from '../machine-authorization/machine-authorization.service';
import { RateLimitService } from '../machine-authorization/rate-limit.service';
import { RequestIdentityService } from '../machine-authorization/request-identity';
import { OidcService } from '../oidc/oidc.service';
import { ApprovalPageRepository } from './approval-page.repository';
import { ApprovalPageService, SESSION_COOKIE, userCodeInput } from './approval-page.service';

const ORIGIN = 'http://svc.test';
const ACTOR = testActor({ credentialId: 11 });
const SESSION_RAW = 'raw-session';
const csrfOf = (raw: string) => Buffer.from(`approval_csrf:${raw}`).toString('base64url');

const request = (headers: Record<string, string> = {}, url = '/machine-approval') =>
  ({ headers: { host: 'svc.test', ...headers }, raw: {}, url }) as unknown as FastifyRequest;
const withSession = (headers: Record<string, string> = {}) =>
  request({ origin: ORIGIN, cookie: `${SESSION_COOKIE}=${SESSION_RAW}`, ...headers });

function makeSut() {
  const repository = {
    createSession: jest.fn(async () => undefined),
    deleteSession: jest.fn(async () => undefined),
    findSessionActor: jest.fn(async () => ({
      id: 3,
      name: 'alice',
      is_admin: false,
      api_token_id: 11 as number | null,
      organization_id: null,
    })),
    serverOrganization: jest.fn(async () => 'Acme'),
    codeContext: jest.fn(async () => null),
  };
  const auth = { actorByToken: jest.fn(async () => ACTOR as AuthenticatedActor | null) };
  const authorizations = {
    resolve: jest.fn(async () => ({ code: 'BCDF-GHJK', decision: 'approved' })),
    get: jest.fn(),
    userCodeHash: jest.fn(() => Buffer.alloc(1)),
  };
  const identities = {
    describe: jest.fn(() => ({ clientKey: '10.0.0.5', networkKey: 'n', wideNetworkKey: 'w', origin: ORIGIN })),
  };
  const counters = {
    hit: jest.fn(async () => ({ hits: 1, retryAfter: 30 })),
    peek: jest.fn(async () => ({ hits: 0, retryAfter: 60 })),
  };
  const secret = { mac: (purpose: string, value: string) => Buffer.from(`${purpose}:${value}`) };
  const oidc = {
    label: jest.fn(() => null as string | null),
    start: jest.fn(async () => ({ location: 'https://id.test/authorize', binding: 'bind' })),
    finish: jest.fn(),
  };
  const sut = new ApprovalPageService(
    repository as unknown as ApprovalPageRepository,
    auth as unknown as AccessService,
    authorizations as unknown as MachineAuthorizationService,
    identities as unknown as RequestIdentityService,
    counters as unknown as RateLimitService,
    secret as unknown as ServerSecretService,
    oidc as unknown as OidcService,
  );
  return { sut, repository, auth, authorizations, counters, oidc };
}

describe(userCodeInput.name, () => {
  it.each([
    ['bcdf ghjk', 'BCDF-GHJK'],
    ['BCDFGHJK', 'BCDF-GHJK'],
    ['nope', null],
    [undefined, null],
  ])('should read %j as %j', (input, expected) => {
    expect(userCodeInput(input)).toBe(expected);
  });
});

describe(ApprovalPageService.name, () => {
  describe('signIn', () => {
    it('should open a session for an active API token and carry the code', async () => {
      const { sut, repository } = makeSut();
      const page = await sut.signIn(request({ origin: ORIGIN }), { token: 'svc_x', code: 'bcdfghjk' });
      expect(page).toMatchObject({ status: 303, location: '/machine-approval/BCDF-GHJK' });
      expect(repository.createSession).toHaveBeenCalledWith(expect.any(Buffer), ACTOR.id, 11, 1800);
    });

    it('should refuse a cross-site form', async () => {
      const { sut, auth } = makeSut();
      await expect(sut.signIn(request({ origin: 'https://evil.test' }), { token: 'svc_x' })).rejects.toMatchObject({
        code: 'forbidden',
      });
      expect(auth.actorByToken).not.toHaveBeenCalled();
    });

    it('should accept the Referer of this server when Origin is absent', async () => {
      const { sut } = makeSut();
      const page = await sut.signIn(request({ referer: `${ORIGIN}/machine-approval` }), { token: 'svc_x' });
      expect(page.status).toBe(303);
    });

    it.each([
      ['an unknown token', null],
      ['a machine credential', { ...ACTOR, via: 'machine_credential' as const }],
      ['a disabled actor', { ...ACTOR, status: 'disabled' as const }],
    ])('should refuse %s and spend the failed sign-in budget', async (_name, actor) => {
      const { sut, auth, counters, repository } = makeSut();
      auth.actorByToken.mockResolvedValue(actor);
      expect((await sut.signIn(request({ origin: ORIGIN }), { token: 'svc_x' })).status).toBe(401);
      expect(counters.hit).toHaveBeenCalledWith('approval_sign_in_fail_client', '10.0.0.5');
      expect(repository.createSession).not.toHaveBeenCalled();
    });

    it('should refuse sign-ins once the failed budget is spent', async () => {
      const { sut, auth, counters } = makeSut();
      counters.peek.mockResolvedValue({ hits: 10, retryAfter: 8 });
      await expect(sut.signIn(request({ origin: ORIGIN }), { token: 'svc_x' })).rejects.toMatchObject({
        code: 'sign_in_rate_limited',
        headers: { 'retry-after': '8' },
      });
      expect(auth.actorByToken).not.toHaveBeenCalled();
    });
  });

  describe('decide', () => {
    it("should resolve the code as the session's actor when the form carries the session's CSRF token", async () => {
      const { sut, authorizations } = makeSut();
      const page = await sut.decide(withSession(), 'bcdf-ghjk', { action: 'approve', csrf: csrfOf(SESSION_RAW) });
      expect(page.status).toBe(200);
      expect(authorizations.resolve).toHaveBeenCalledWith(
        { body: { code: 'BCDF-GHJK', action: 'approve' }, contentType: 'application/json' },
        expect.objectContaining({ id: 3, credentialId: 11 }),
        expect.anything(),
        null,
      );
    });

    it('should refuse a stale CSRF token', async () => {
      const { sut, authorizations } = makeSut();
      await expect(
        sut.decide(withSession(), 'BCDF-GHJK', { action: 'approve', csrf: csrfOf('another') }),
      ).rejects.toMatchObject({ code: 'forbidden' });
      expect(authorizations.resolve).not.toHaveBeenCalled();
    });

    it('should refuse when the session expired', async () => {
      const { sut, repository } = makeSut();
      repository.findSessionActor.mockResolvedValue(null as never);
      await expect(
        sut.decide(withSession(), 'BCDF-GHJK', { action: 'approve', csrf: csrfOf(SESSION_RAW) }),
      ).rejects.toMatchObject({ code: 'unauthorized' });
    });

    it('should act without a credential for a company sign-in session', async () => {
      const { sut, repository, authorizations } = makeSut();
      repository.findSessionActor.mockResolvedValue({
        id: 3,
        name: 'alice',
        is_admin: false,
        api_token_id: null,
        organization_id: null,
      });
      await sut.decide(withSession(), 'BCDF-GHJK', { action: 'deny', csrf: csrfOf(SESSION_RAW) });
      expect(authorizations.resolve).toHaveBeenCalledWith(
        expect.anything(),
        expect.objectContaining({ credentialId: 0 }),
        expect.anything(),
        null,
      );
    });
  });

  describe('signOut', () => {
    it('should delete the session and clear the cookie', async () => {
      const { sut, repository } = makeSut();
      const page = await sut.signOut(withSession(), { csrf: csrfOf(SESSION_RAW) });
      expect(repository.deleteSession).toHaveBeenCalledWith(hashToken(SESSION_RAW));
      expect(page.cookie).toContain('Max-Age=0');
    });
  });

  describe('view', () => {
    it('should refuse a malformed code in the path', async () => {
      const { sut } = makeSut();
      expect((await sut.view(request(), 'xx')).status).toBe(400);
    });

    it('should show the sign-in page without a session, never looking the code up', async () => {
      const { sut, authorizations } = makeSut();
      const page = await sut.view(request(), 'BCDF-GHJK');
      expect(page.status).toBe(200);
      expect(authorizations.get).not.toHaveBeenCalled();
    });
  });

  describe('company sign-in', () => {
    it('should refuse starts over the per-client budget', async () => {
      const { sut, counters, oidc } = makeSut();
      counters.hit.mockResolvedValue({ hits: 21, retryAfter: 5 });
      await expect(sut.startCompanySignIn(request(), {})).rejects.toMatchObject({ code: 'sign_in_rate_limited' });
      expect(oidc.start).not.toHaveBeenCalled();
    });

    it('should bind the provider round trip to a cookie of this browser', async () => {
      const { sut } = makeSut();
      const page = await sut.startCompanySignIn(request(), { code: 'BCDF-GHJK' });
      expect(page).toMatchObject({ status: 303, location: 'https://id.test/authorize' });
      expect(page.cookie).toContain('svc_oidc=bind');
    });

    it('should refuse a callback without the binding cookie', async () => {
      const { sut, oidc } = makeSut();
      await expect(sut.finishCompanySignIn(request())).rejects.toMatchObject({ code: 'unauthorized' });
      expect(oidc.finish).not.toHaveBeenCalled();
    });
  });
});
