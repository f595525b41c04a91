import { testActor } from '../auth/test-actor';
import { refusal } from '../common/test-refusal';
import { ProjectAccessService } from '../projects/project-access.service';
import { ProjectsService } from '../projects/projects.service';
import { itemNotFound } from '../refs/refs.errors';
import { RecordsRepository } from './records.repository';
import { RecordsService } from './records.service';

const MEMBER = testActor();
const ADMIN = testActor({ id: 1, name: 'root', isAdmin: true });
const ITEM = { id: 7, ref: 'PRJ-7', project: 'prj' };

const DISPOSITION = {
  item: 'prj-7',
  transition: 'shepherd',
  caveat_num: 2,
  caveat_text: 'flaky test',
  disposition: 'fixed',
};

function makeSut() {
  const repository = {
    insertVerdict: jest.fn(async (v: object) => ({ id: 1, created_at: 'now', ...v })),
    verdicts: jest.fn(async () => []),
    verdictItem: jest.fn(async (): Promise<string | null> => 'PRJ-7'),
    insertDisposition: jest.fn(async (d: object): Promise<object | null> => ({ id: 5, created_at: 'now', ...d })),
    dispositions: jest.fn(async () => []),
    insertOuroboros: jest.fn(async (e: object) => ({ id: 9, ...e })),
    ouroboros: jest.fn(async () => []),
    markOuroboros: jest.fn(async () => true),
    ouroborosEntry: jest.fn(async () => ({ id: 9 })),
  };
  const access = {
    resolveItem: jest.fn(async () => ITEM),
    visiblePrefixes: jest.fn(async () => ['PRJ']),
  };
  const projects = { organizationFor: jest.fn(async (): Promise<number | null> => 4) };
  const sut = new RecordsService(
    repository as unknown as RecordsRepository,
    access as unknown as ProjectAccessService,
    projects as unknown as ProjectsService,
  );
  return { sut, repository, access, projects };
}

describe(RecordsService.name, () => {
  describe('addVerdict', () => {
    it('should store the verdict under the item’s canonical ref, first attempt by default', async () => {
      const { sut, repository } = makeSut();
      await sut.addVerdict(MEMBER, { item: 'prj-7', transition: 'shepherd', worker: 'w', verdict: 'pass' });
      expect(repository.insertVerdict).toHaveBeenCalledWith({
        item: 'PRJ-7',
        transition: 'shepherd',
        worker: 'w',
        verdict: 'pass',
        caveats: null,
        attempt: 1,
      });
    });

    it('should write nothing for an item the caller cannot see', async () => {
      const { sut, repository, access } = makeSut();
      access.resolveItem.mockRejectedValueOnce(itemNotFound('PRJ-7'));
      const err = await refusal(
        sut.addVerdict(MEMBER, { item: 'PRJ-7', transition: 'shepherd', worker: 'w', verdict: 'pass' }),
      );
      expect(err).toMatchObject({ code: 'item_not_found', status: 404 });
      expect(repository.insertVerdict).not.toHaveBeenCalled();
    });
  });

  describe('addDisposition', () => {
    it('should refuse a verdict of another item with 404 verdict_not_found and write nothing', async () => {
      const { sut, repository } = makeSut();
      repository.verdictItem.mockResolvedValueOnce('PRJ-8');
      const err = await refusal(sut.addDisposition(MEMBER, { ...DISPOSITION, verdict_id: 3 }));
      expect(err).toMatchObject({ code: 'verdict_not_found', status: 404, message: 'no shepherd verdict 3 for PRJ-7' });
      expect(repository.insertDisposition).not.toHaveBeenCalled();
    });

    it('should refuse a verdict that does not exist with 404 verdict_not_found', async () => {
      const { sut, repository } = makeSut();
      repository.verdictItem.mockResolvedValueOnce(null);
      const err = await refusal(sut.addDisposition(MEMBER, { ...DISPOSITION, verdict_id: 3 }));
      expect(err).toMatchObject({ code: 'verdict_not_found', status: 404 });
      expect(repository.insertDisposition).not.toHaveBeenCalled();
    });

    it('should refuse a caveat that already has a disposition with 409 disposition_exists', async () => {
      const { sut, repository } = makeSut();
      repository.insertDisposition.mockResolvedValueOnce(null);
      const err = await refusal(sut.addDisposition(MEMBER, DISPOSITION));
      expect(err).toMatchObject({
        code: 'disposition_exists',
        status: 409,
        message: 'caveat 2 of PRJ-7 shepherd attempt 1 already has a disposition',
      });
    });

    it('should store the disposition under the canonical ref without a verdict check when none is named', async () => {
      const { sut, repository } = makeSut();
      await sut.addDisposition(MEMBER, DISPOSITION);
      expect(repository.verdictItem).not.toHaveBeenCalled();
      expect(repository.insertDisposition).toHaveBeenCalledWith(
        expect.objectContaining({ item: 'PRJ-7', attempt: 1, verdict_id: null, resolution_details: null }),
      );
    });
  });

  describe('reading verdicts and dispositions', () => {
    it('should refuse a member asking for every item with 400 item_required', async () => {
      const { sut, repository } = makeSut();
      const err = await refusal(sut.verdicts(MEMBER));
      expect(err).toMatchObject({ code: 'item_required', status: 400 });
      expect(repository.verdicts).not.toHaveBeenCalled();
      await expect(refusal(sut.dispositions(MEMBER))).resolves.toMatchObject({ code: 'item_required' });
      expect(repository.dispositions).not.toHaveBeenCalled();
    });

    it('should confine an admin asking for every item to the prefixes it sees', async () => {
      const { sut, repository } = makeSut();
      await sut.dispositions(ADMIN);
      expect(repository.dispositions).toHaveBeenCalledWith({ items: null, prefixes: ['PRJ'] });
    });

    it('should read one item by its canonical ref', async () => {
      const { sut, repository } = makeSut();
      await sut.verdicts(MEMBER, 'prj-7');
      expect(repository.verdicts).toHaveBeenCalledWith({ items: ['PRJ-7'], prefixes: null });
    });
  });

  describe('ouroboros', () => {
    it('should refuse a writer with no organization with 403 organization_membership_required', async () => {
      const { sut, repository, projects } = makeSut();
      projects.organizationFor.mockResolvedValueOnce(null);
      const err = await refusal(sut.addOuroboros(MEMBER, { agent: 'a', category: 'c', body: 'b' }));
      expect(err).toMatchObject({ code: 'organization_membership_required', status: 403 });
      expect(repository.insertOuroboros).not.toHaveBeenCalled();
    });

    it('should file an entry under the writer’s organization', async () => {
      const { sut, repository } = makeSut();
      await sut.addOuroboros(MEMBER, { agent: 'a', category: 'c', body: 'b' });
      expect(repository.insertOuroboros).toHaveBeenCalledWith({
        organizationId: 4,
        timestamp: null,
        agent: 'a',
        context: null,
        category: 'c',
        body: 'b',
      });
    });

    it('should answer an entry the caller cannot mark with 404 ouroboros_entry_not_found', async () => {
      const { sut, repository } = makeSut();
      repository.markOuroboros.mockResolvedValueOnce(false);
      const err = await refusal(sut.markOuroboros(MEMBER, 9, 'reviewed_at'));
      expect(err).toMatchObject({ code: 'ouroboros_entry_not_found', status: 404 });
      expect(repository.ouroborosEntry).not.toHaveBeenCalled();
    });

    it('should pass the list filters as numbers', async () => {
      const { sut, repository } = makeSut();
      await sut.ouroboros(MEMBER, { reviewed: '1', archived: '0' });
      expect(repository.ouroboros).toHaveBeenCalledWith(MEMBER, {
        agent: undefined,
        category: undefined,
        reviewed: 1,
        archived: 0,
        limit: 100,
      });
    });
  });
});
