import { testActor } from '../auth/test-actor';
import { AppConfig } from '../config/app-config';
import { ActorRow, OrganizationRow, TeamRepository, TokenRow } from './team.repository';
import { TeamService } from './team.service';

const ACME: OrganizationRow = { id: 1, slug: 'acme', name: 'Acme' };
const OTHER: OrganizationRow = { id: 2, slug: 'other', name: 'Other' };
const CALLER = testActor({ credentialId: 11 });
const actor = (over: Partial<ActorRow> = {}): ActorRow => ({
  id: 7,
  name: 'bob',
  email: null,
  kind: 'person',
  status: 'active',
  is_admin: false,
  oidc_subject: null,
  created_at: new Date('2025-01-01T00:00:00Z'),
  memberships: [],
  ...over,
});
const token = (over: Partial<TokenRow> = {}): TokenRow =>
  ({
    id: 21,
    name: 'cli',
    actor: 'bob',
    actor_id: 7,
    token_prefix: 'svc_abcd',
    created_at: new Date('2025-01-01T00:00:00Z'),
    last_used_at: null,
    expires_at: null,
    revoked_at: null,
    parent_token_id: null,
    parent_machine_id: null,
    scope: 'full',
    ...over,
  }) as TokenRow;

function makeSut(mode: 'self-host' | 'hosted' = 'self-host') {
  const repository = {
    transaction: jest.fn(async <T>(work: (manager: unknown) => Promise<T>) => work({})),
    organizationBySlug: jest.fn(async (slug: string) => [ACME, OTHER].find((o) => o.slug === slug) ?? null),
    organizationById: jest.fn(async (id: number) => [ACME, OTHER].find((o) => o.id === id) ?? null),
    organizations: jest.fn(async () => [ACME]),
    adminOrganizations: jest.fn(async () => [ACME]),
    membership: jest.fn(async () => ({ status: 'active' }) as { status: string } | null),
    visibleActorByName: jest.fn(async () => actor() as ActorRow | null),
    memberByName: jest.fn(async () => null as (ActorRow & { is_admin: boolean }) | null),
    insertActor: jest.fn(async () => 7 as number | 'name_taken' | 'email_taken'),
    upsertMembership: jest.fn(async () => undefined),
    actorById: jest.fn(async () => actor()),
    setActorStatus: jest.fn(async () => undefined),
    removeMembership: jest.fn(async () => 'removed' as 'removed' | 'absent' | 'last_admin'),
    insertToken: jest.fn(async () => token() as TokenRow | null),
    tokenById: jest.fn(async () => token() as TokenRow | null),
    isInView: jest.fn(async () => true),
    revokeToken: jest.fn(async () => 1),
    insertOrganization: jest.fn(async () => 1 as number | null),
    organizationSummaries: jest.fn(async () => []),
    listMembers: jest.fn(async () => []),
    listTokens: jest.fn(async () => []),
  };
  const sut = new TeamService({ mode } as AppConfig, repository as unknown as TeamRepository);
  return { sut, repository };
}

describe(TeamService.name, () => {
  describe('createOrganization', () => {
    it('should refuse anyone but an unconfined server admin', async () => {
      const { sut, repository } = makeSut();
      await expect(sut.createOrganization(CALLER, { slug: 'new' })).rejects.toMatchObject({ code: 'forbidden' });
      await expect(
        sut.createOrganization({ ...CALLER, isAdmin: true, organizationId: 1 }, { slug: 'new' }),
      ).rejects.toMatchObject({ code: 'forbidden' });
      expect(repository.insertOrganization).not.toHaveBeenCalled();
    });

    it('should refuse a slug that exists', async () => {
      const { sut, repository } = makeSut();
      repository.insertOrganization.mockResolvedValue(null);
      await expect(sut.createOrganization({ ...CALLER, isAdmin: true }, { slug: 'acme' })).rejects.toMatchObject({
        code: 'organization_exists',
      });
    });
  });

  describe('createActor', () => {
    it('should refuse a member who administers no organization', async () => {
      const { sut, repository } = makeSut();
      repository.adminOrganizations.mockResolvedValue([]);
      await expect(sut.createActor(CALLER, { name: 'bob' })).rejects.toMatchObject({ code: 'forbidden' });
      expect(repository.insertActor).not.toHaveBeenCalled();
    });

    it("should not tell an organization admin whether a taken name is someone else's", async () => {
      const { sut, repository } = makeSut();
      repository.insertActor.mockResolvedValue('name_taken');
      await expect(sut.createActor(CALLER, { name: 'bob' })).rejects.toMatchObject({ code: 'name_unavailable' });
    });

    it('should tell a server admin the name exists', async () => {
      const { sut, repository } = makeSut();
      repository.insertActor.mockResolvedValue('name_taken');
      await expect(sut.createActor({ ...CALLER, isAdmin: true }, { name: 'bob' })).rejects.toMatchObject({
        code: 'actor_exists',
      });
    });

    it('should make a server admin only when an unconfined server admin asks on self-host', async () => {
      const { sut, repository } = makeSut();
      await sut.createActor(CALLER, { name: 'bob', admin: true });
      await sut.createActor({ ...CALLER, isAdmin: true }, { name: 'carol', admin: true });
      expect(repository.insertActor.mock.calls.map((c) => (c as unknown[])[1])).toMatchObject([
        { name: 'bob', isAdmin: false },
        { name: 'carol', isAdmin: true },
      ]);
    });

    it('should never make a server admin on a hosted server', async () => {
      const { sut, repository } = makeSut('hosted');
      await sut.createActor({ ...CALLER, isAdmin: true }, { name: 'bob', admin: true, org: 'acme' });
      expect(repository.insertActor).toHaveBeenCalledWith({}, expect.objectContaining({ isAdmin: false }));
      expect(repository.upsertMembership).toHaveBeenCalledWith({}, ACME.id, 7, 'admin');
    });

    it('should answer a confined request naming another organization like an unknown one', async () => {
      const { sut } = makeSut();
      await expect(
        sut.createActor({ ...CALLER, organizationId: ACME.id }, { name: 'bob', org: 'other' }),
      ).rejects.toMatchObject({ code: 'not_found' });
    });

    it('should refuse a member who is no admin of the named organization', async () => {
      const { sut, repository } = makeSut();
      repository.adminOrganizations.mockResolvedValue([OTHER]);
      await expect(sut.createActor(CALLER, { name: 'bob', org: 'acme' })).rejects.toMatchObject({
        code: 'forbidden',
      });
    });

    it('should answer an organization the caller is not a member of like an unknown one', async () => {
      const { sut, repository } = makeSut();
      repository.adminOrganizations.mockResolvedValue([OTHER]);
      repository.membership.mockResolvedValue(null);
      await expect(sut.createActor(CALLER, { name: 'bob', org: 'acme' })).rejects.toMatchObject({
        code: 'not_found',
      });
    });
  });

  describe('setStatus', () => {
    it('should refuse disabling oneself', async () => {
      const { sut, repository } = makeSut();
      repository.visibleActorByName.mockResolvedValue(actor({ id: CALLER.id, name: 'alice' }));
      await expect(sut.setStatus(CALLER, 'alice', 'disabled')).rejects.toMatchObject({
        code: 'cannot_disable_self',
      });
    });

    it('should write nothing when the status is already the one asked', async () => {
      const { sut, repository } = makeSut();
      await sut.setStatus(CALLER, 'bob', 'active');
      expect(repository.setActorStatus).not.toHaveBeenCalled();
    });

    it('should answer an actor outside the view like an unknown name', async () => {
      const { sut, repository } = makeSut();
      repository.visibleActorByName.mockResolvedValue(null);
      await expect(sut.setStatus(CALLER, 'bob', 'disabled')).rejects.toMatchObject({ code: 'not_found' });
    });
  });

  describe('removeMember', () => {
    it('should refuse removing the last admin', async () => {
      const { sut, repository } = makeSut();
      repository.removeMembership.mockResolvedValue('last_admin');
      await expect(sut.removeMember(CALLER, { org: 'acme', actor: 'bob' })).rejects.toMatchObject({
        code: 'last_admin',
      });
    });

    it('should let an organization admin remove a member who also belongs elsewhere', async () => {
      const { sut, repository } = makeSut();
      repository.memberByName.mockResolvedValue(actor({ is_admin: false }));
      repository.visibleActorByName.mockResolvedValue(null);
      expect(await sut.removeMember(CALLER, { org: 'acme', actor: 'bob' })).toEqual({
        org: 'acme',
        actor: 'bob',
        removed: true,
      });
    });

    it('should answer a server admin an organization admin tries to remove like an unknown name', async () => {
      const { sut, repository } = makeSut();
      repository.memberByName.mockResolvedValue(actor({ is_admin: true }));
      repository.visibleActorByName.mockResolvedValue(null);
      await expect(sut.removeMember(CALLER, { org: 'acme', actor: 'bob' })).rejects.toMatchObject({
        code: 'not_found',
      });
      expect(repository.removeMembership).not.toHaveBeenCalled();
    });
  });

  describe('createToken', () => {
    it('should refuse a metrics token to anyone but an unconfined server admin', async () => {
      const { sut, repository } = makeSut();
      await expect(sut.createToken(CALLER, { scope: 'metrics' })).rejects.toMatchObject({ code: 'forbidden' });
      expect(repository.insertToken).not.toHaveBeenCalled();
    });

    it('should refuse a token for a disabled actor', async () => {
      const { sut, repository } = makeSut();
      repository.visibleActorByName.mockResolvedValue(actor({ status: 'disabled' }));
      await expect(sut.createToken(CALLER, { actor: 'bob' })).rejects.toMatchObject({ code: 'actor_disabled' });
    });

    it("should mint a child of the caller's credential, confined where the request is", async () => {
      const { sut, repository } = makeSut();
      const created = await sut.createToken({ ...CALLER, organizationId: ACME.id }, { name: 'ci' });
      expect(created.token).toMatch(/^svc_/);
      expect(repository.insertToken).toHaveBeenCalledWith(
        CALLER.id,
        'ci',
        expect.any(Buffer),
        expect.any(String),
        null,
        { via: 'api_token', id: 11 },
        ACME.id,
        'full',
      );
    });

    it('should refuse when the parent credential was revoked meanwhile', async () => {
      const { sut, repository } = makeSut();
      repository.insertToken.mockResolvedValue(null);
      await expect(sut.createToken(CALLER, {})).rejects.toMatchObject({ code: 'unauthorized' });
    });
  });

  describe('revokeToken', () => {
    it("should answer a token outside the caller's view like an unknown one", async () => {
      const { sut, repository } = makeSut();
      repository.isInView.mockResolvedValue(false);
      await expect(sut.revokeToken(CALLER, 21)).rejects.toMatchObject({ code: 'not_found' });
      expect(repository.revokeToken).not.toHaveBeenCalled();
    });

    it("should revoke the caller's own token", async () => {
      const { sut, repository } = makeSut();
      repository.tokenById.mockResolvedValue(token({ actor_id: CALLER.id }));
      repository.isInView.mockResolvedValue(false);
      expect(await sut.revokeToken(CALLER, 21)).toEqual({ token_id: 21, revoked: 1 });
    });
  });

  describe('listMembers', () => {
    it('should answer a non-member like an unknown organization', async () => {
      const { sut, repository } = makeSut();
      repository.membership.mockResolvedValue(null);
      await expect(sut.listMembers(CALLER, 'acme')).rejects.toMatchObject({ code: 'not_found' });
    });
  });
});
