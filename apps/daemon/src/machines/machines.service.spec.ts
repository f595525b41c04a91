import { testActor } from '../auth/test-actor';
import { MachinesRepository } from './machines.repository';
import { MachinesService } from './machines.service';

const ACTOR = testActor();

function makeSut() {
  const repository = { listManageable: jest.fn(async () => []), revoke: jest.fn(async () => 1) };
  return { sut: new MachinesService(repository as unknown as MachinesRepository), repository };
}

describe(MachinesService.name, () => {
  describe('revoke', () => {
    it('should answer how many credentials the revocation reached', async () => {
      const { sut, repository } = makeSut();
      repository.revoke.mockResolvedValue(2);
      expect(await sut.revoke(ACTOR, 'm-1')).toEqual({ machine_id: 'm-1', revoked: 2 });
    });

    it('should answer not found when no live credential the caller may manage matched', async () => {
      const { sut, repository } = makeSut();
      repository.revoke.mockResolvedValue(0);
      await expect(sut.revoke(ACTOR, 'm-1')).rejects.toMatchObject({ code: 'not_found', status: 404 });
    });

    it('should manage as an admin of the organization a confined server admin is confined to', async () => {
      const { sut, repository } = makeSut();
      await sut.revoke({ ...ACTOR, isAdmin: true, organizationId: 5 }, 'm-1');
      expect(repository.revoke).toHaveBeenCalledWith(
        { actorId: 3, serverAdmin: false, scope: 5, scopeAdmin: true },
        'm-1',
      );
    });

    it('should manage every organization as an unconfined server admin', async () => {
      const { sut, repository } = makeSut();
      await sut.revoke({ ...ACTOR, isAdmin: true }, 'm-1');
      expect(repository.revoke).toHaveBeenCalledWith(
        { actorId: 3, serverAdmin: true, scope: null, scopeAdmin: false },
        'm-1',
      );
    });
  });

  describe('list', () => {
    it('should list what the caller may manage, revoked ones only when asked', async () => {
      const { sut, repository } = makeSut();
      await sut.list(ACTOR, true);
      expect(repository.listManageable).toHaveBeenCalledWith(
        { actorId: 3, serverAdmin: false, scope: null, scopeAdmin: false },
        true,
      );
    });
  });
});
