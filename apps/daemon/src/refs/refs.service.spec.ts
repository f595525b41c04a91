import { refusal } from '../common/test-refusal';
import { RefsRepository, ResolvedRef } from './refs.repository';
import { RefsService } from './refs.service';

const KNOWN: ResolvedRef[] = [
  { id: 1, ref: 'PRJ-1', project: 'prj' },
  { id: 2, ref: 'PRJ-2', project: 'prj' },
];

function makeSut() {
  const repository = {
    resolveMany: jest.fn(async (refs: readonly string[]) =>
      KNOWN.filter((k) => refs.some((r) => r.toUpperCase() === k.ref)),
    ),
    resolveOne: jest.fn(
      async (prefix: string, sequence: number) => KNOWN.find((k) => k.ref === `${prefix}-${sequence}`) ?? null,
    ),
    refsOf: jest.fn(async () => new Map([[1, 'PRJ-1']])),
  };
  const sut = new RefsService(repository as unknown as RefsRepository);
  return { sut, repository };
}

describe(RefsService.name, () => {
  describe('resolve', () => {
    it.each([['12'], ['PRJ-'], ['-1'], ['PRJ_1'], ['ABCDEFGHIJKLMNOPQ-1'], ['PRJ-1234567890']])(
      'should refuse %j with 400 invalid_ref without asking the database',
      async (ref) => {
        const { sut, repository } = makeSut();
        const err = await refusal(sut.resolve(ref));
        expect(err).toMatchObject({ code: 'invalid_ref', status: 400 });
        expect(repository.resolveOne).not.toHaveBeenCalled();
      },
    );

    it('should answer a ref that resolves to nothing with 404 item_not_found naming it', async () => {
      const { sut } = makeSut();
      const err = await refusal(sut.resolve('PRJ-9'));
      expect(err).toMatchObject({ code: 'item_not_found', status: 404, message: 'no item PRJ-9' });
      expect(err.extra).toEqual({ item_id: 'PRJ-9' });
    });

    it('should resolve a ref whatever its case', async () => {
      const { sut, repository } = makeSut();
      await expect(sut.resolve('prj-2')).resolves.toEqual(KNOWN[1]);
      expect(repository.resolveOne).toHaveBeenCalledWith('PRJ', 2, undefined);
    });
  });

  describe('resolveAll', () => {
    it('should refuse the whole set when any ref is malformed, naming each, without asking the database', async () => {
      const { sut, repository } = makeSut();
      const err = await refusal(sut.resolveAll(['PRJ-1', 'x', 'y-']));
      expect(err).toMatchObject({ code: 'invalid_ref', status: 400, message: 'not item refs: x, y-' });
      expect(repository.resolveMany).not.toHaveBeenCalled();
    });

    it('should refuse the whole set with 404 item_not_found naming every missing ref', async () => {
      const { sut } = makeSut();
      const err = await refusal(sut.resolveAll(['PRJ-1', 'PRJ-8', 'PRJ-9']));
      expect(err).toMatchObject({ code: 'item_not_found', status: 404 });
      expect(err.extra).toEqual({ missing: ['PRJ-8', 'PRJ-9'] });
    });

    it('should key each resolution by the ref as asked, in one query', async () => {
      const { sut, repository } = makeSut();
      const resolved = await sut.resolveAll(['prj-1', 'PRJ-2']);
      expect(repository.resolveMany).toHaveBeenCalledTimes(1);
      expect([...resolved.entries()]).toEqual([
        ['prj-1', KNOWN[0]],
        ['PRJ-2', KNOWN[1]],
      ]);
    });
  });
});
