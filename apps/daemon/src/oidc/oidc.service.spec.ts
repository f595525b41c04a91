import { Logger } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { ServerSecretService } from '../config/server-secret.service';
import { OidcRepository, SignInActorRow } from './oidc.repository';
import { OidcService } from './oidc.service';

const provider = {
  claims: { sub: 'sub-1', email: 'Ada@Example.com', email_verified: true } as Record<string, unknown> | undefined,
  grant: jest.fn(),
};

jest.mock('openid-client', () => ({
  discovery: jest.fn(async () => ({})),
  allowInsecureRequests: jest.fn(),
  buildAuthorizationUrl: jest.fn(() => new URL('https://id.example.com/authorize?x=1')),
  calculatePKCECodeChallenge: jest.fn(async () => 'challenge'),
  authorizationCodeGrant: jest.fn(async () => {
    provider.grant();
    return { access_token: 'at', claims: () => provider.claims };
  }),
  fetchUserInfo: jest.fn(async () => ({ email: 'ada@example.com', email_verified: true })),
}));

const ADA: SignInActorRow = { id: 5, name: 'ada', status: 'active', kind: 'person', oidc_subject: 'sub-1' };
const CALLBACK = new URL('https://svc.example.com/machine-approval/oidc/callback?state=s1&code=c1');
const ORIGIN = 'https://svc.example.com';

function makeSut(options: { mode?: 'self-host' | 'hosted'; oidc?: Partial<AppConfig['oidc']> } = {}) {
  const repository = {
    saveSignInState: jest.fn(async () => undefined),
    consumeSignInState: jest.fn(async () => ({ pkce_verifier: 'v', nonce: 'n', return_code: 'BCDF-GHJK' }) as unknown),
    actorBySubject: jest.fn(async () => null as SignInActorRow | null),
    linkInvited: jest.fn(async () => null as SignInActorRow | null),
    provision: jest.fn(async (_email: string, _issuer: string, _sub: string, name: string) => ({ ...ADA, name })),
  };
  const config = {
    mode: options.mode ?? 'self-host',
    oidc: {
      issuer: 'https://id.example.com',
      clientId: 'svc',
      clientSecret: 'secret',
      allowedDomains: ['example.com'],
      ...options.oidc,
    },
  } as unknown as AppConfig;
  const secret = { mac: (purpose: string, value: string) => Buffer.from(`${purpose}:${value}`) };
  const sut = new OidcService(config, repository as unknown as OidcRepository, secret as ServerSecretService);
  return { sut, repository };
}

describe(OidcService.name, () => {
  beforeAll(() => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  });
  afterAll(() => jest.restoreAllMocks());
  beforeEach(() => {
    provider.grant.mockClear();
    provider.claims = { sub: 'sub-1', email: 'Ada@Example.com', email_verified: true };
  });

  describe('without company sign-in', () => {
    it('should offer no button and answer not found to a start', async () => {
      const { sut } = makeSut({ oidc: { issuer: undefined, clientId: undefined, clientSecret: undefined } });
      expect(sut.label()).toBeNull();
      await expect(sut.start(ORIGIN, null)).rejects.toMatchObject({ code: 'not_found' });
    });
  });

  describe('start', () => {
    it('should store the sign-in state by digest and send the browser to the provider', async () => {
      const { sut, repository } = makeSut();
      const started = await sut.start(ORIGIN, 'BCDF-GHJK');
      expect(started.location).toBe('https://id.example.com/authorize?x=1');
      expect(repository.saveSignInState).toHaveBeenCalledWith(
        expect.objectContaining({
          bindingDigest: Buffer.from(`oidc_binding:${started.binding}`),
          returnCode: 'BCDF-GHJK',
          lifetimeSeconds: 600,
        }),
      );
    });
  });

  describe('finish', () => {
    it('should refuse a callback whose sign-in this browser did not start (or already used)', async () => {
      const { sut, repository } = makeSut();
      repository.consumeSignInState.mockResolvedValue(null);
      await expect(sut.finish(ORIGIN, CALLBACK, 'b')).rejects.toMatchObject({ code: 'sign_in_failed' });
      expect(provider.grant).not.toHaveBeenCalled();
    });

    it('should admit the actor already linked to the company account', async () => {
      const { sut, repository } = makeSut();
      repository.actorBySubject.mockResolvedValue(ADA);
      expect(await sut.finish(ORIGIN, CALLBACK, 'b')).toEqual({ actor: ADA, returnCode: 'BCDF-GHJK' });
      expect(repository.provision).not.toHaveBeenCalled();
    });

    it('should refuse a disabled actor', async () => {
      const { sut, repository } = makeSut();
      repository.actorBySubject.mockResolvedValue({ ...ADA, status: 'disabled' });
      await expect(sut.finish(ORIGIN, CALLBACK, 'b')).rejects.toMatchObject({ code: 'actor_disabled' });
    });

    it('should refuse an unverified email', async () => {
      const { sut, repository } = makeSut();
      provider.claims = { sub: 'sub-1', email: 'ada@example.com', email_verified: false };
      await expect(sut.finish(ORIGIN, CALLBACK, 'b')).rejects.toMatchObject({ code: 'sign_in_not_admitted' });
      expect(repository.linkInvited).not.toHaveBeenCalled();
    });

    it('should link an invited actor by the lower-cased email', async () => {
      const { sut, repository } = makeSut();
      repository.linkInvited.mockResolvedValue(ADA);
      expect((await sut.finish(ORIGIN, CALLBACK, 'b')).actor).toEqual(ADA);
      expect(repository.linkInvited).toHaveBeenCalledWith('ada@example.com', 'https://id.example.com/', 'sub-1');
    });

    it('should provision a member of an allowed domain, named from the email', async () => {
      const { sut, repository } = makeSut();
      provider.claims = { sub: 'sub-1', email: '-ada+x@example.com', email_verified: true };
      expect((await sut.finish(ORIGIN, CALLBACK, 'b')).actor.name).toBe('ada-x');
      expect(repository.provision).toHaveBeenCalledWith(
        '-ada+x@example.com',
        'https://id.example.com/',
        'sub-1',
        'ada-x',
      );
    });

    it('should refuse a domain that is not allowed', async () => {
      const { sut, repository } = makeSut({ oidc: { allowedDomains: ['other.org'] } });
      await expect(sut.finish(ORIGIN, CALLBACK, 'b')).rejects.toMatchObject({ code: 'sign_in_not_admitted' });
      expect(repository.provision).not.toHaveBeenCalled();
    });

    it('should never provision by domain on a hosted server', async () => {
      const { sut, repository } = makeSut({ mode: 'hosted' });
      await expect(sut.finish(ORIGIN, CALLBACK, 'b')).rejects.toMatchObject({ code: 'sign_in_not_admitted' });
      expect(repository.provision).not.toHaveBeenCalled();
    });

    it('should read the email from UserInfo when the ID token carries none', async () => {
      const { sut, repository } = makeSut();
      provider.claims = { sub: 'sub-1' };
      repository.linkInvited.mockResolvedValue(ADA);
      await sut.finish(ORIGIN, CALLBACK, 'b');
      expect(repository.linkInvited).toHaveBeenCalledWith('ada@example.com', expect.any(String), 'sub-1');
    });
  });
});
