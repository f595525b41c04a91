import { AccessService } from './access.service';
import { AuthenticatedActor } from './actor';
import { testActor } from './test-actor';
import { AuthRepository } from './auth.repository';
import { hashToken } from './tokens';

const ACTOR = testActor();

function makeSut() {
  const repository = {
    accessibleProjects: jest.fn(async () => [{ id: '1', name: 'svc', public_item_prefix: 'SVC' }]),
    projectAdministration: jest.fn(
      async () =>
        ({ organization: 'acme', admin: false }) as {
          organization: string | null;
          admin: boolean;
        } | null,
    ),
    findActorByCredentialHash: jest.fn(async (_hash: Buffer) => ACTOR as AuthenticatedActor | null),
  };
  return { sut: new AccessService(repository as unknown as AuthRepository), repository };
}

describe(AccessService.name, () => {
  describe('projectAdministration', () => {
    it('should answer the organization and that a plain member administers nothing', async () => {
      const { sut } = makeSut();
      expect(await sut.projectAdministration(ACTOR, '1')).toEqual({ organization: 'acme', isOrgAdmin: false });
    });

    it("should count an active admin of the project's organization", async () => {
      const { sut, repository } = makeSut();
      repository.projectAdministration.mockResolvedValue({ organization: 'acme', admin: true });
      expect(await sut.projectAdministration(ACTOR, '1')).toEqual({ organization: 'acme', isOrgAdmin: true });
    });

    it('should count an unconfined server admin', async () => {
      const { sut } = makeSut();
      expect((await sut.projectAdministration({ ...ACTOR, isAdmin: true }, '1')).isOrgAdmin).toBe(true);
    });

    it('should not count a server admin confined to another organization', async () => {
      const { sut } = makeSut();
      const confined = { ...ACTOR, isAdmin: true, scopeOrganizationId: 9 };
      expect((await sut.projectAdministration(confined, '1')).isOrgAdmin).toBe(false);
    });

    it('should answer no organization for a missing project', async () => {
      const { sut, repository } = makeSut();
      repository.projectAdministration.mockResolvedValue(null);
      expect(await sut.projectAdministration(ACTOR, '404')).toEqual({ organization: null, isOrgAdmin: false });
    });
  });

  describe('actorByToken', () => {
    it('should look the token up by its hash', async () => {
      const { sut, repository } = makeSut();
      expect(await sut.actorByToken('svc_abc')).toEqual(ACTOR);
      expect(repository.findActorByCredentialHash).toHaveBeenCalledWith(hashToken('svc_abc'));
    });

    it('should refuse a metrics-only token', async () => {
      const { sut, repository } = makeSut();
      repository.findActorByCredentialHash.mockResolvedValue({ ...ACTOR, scope: 'metrics' });
      expect(await sut.actorByToken('svc_abc')).toBeNull();
    });
  });
});
