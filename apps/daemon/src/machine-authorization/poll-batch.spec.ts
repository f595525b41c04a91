import { assignHits, groupBudgets, PollBatcher, PollBatchRows, RunPollBatch } from './poll-batch';

const lookup = (clientKey: string, scope = 'poll') => ({ scope, clientKey, hash: Buffer.from('00', 'hex') });

describe(groupBudgets.name, () => {
  it('should count requests per client budget when clients repeat', () => {
    const { groups, groupOf } = groupBudgets([lookup('a'), lookup('b'), lookup('a'), lookup('a', 'start')]);
    expect(groups).toEqual([
      { scope: 'poll', subject: 'a', count: 2 },
      { scope: 'poll', subject: 'b', count: 1 },
      { scope: 'start', subject: 'a', count: 1 },
    ]);
    expect(groupOf).toEqual([0, 1, 0, 2]);
  });
});

describe(assignHits.name, () => {
  it('should give each request its own hit number in arrival order when a batch shares a budget', () => {
    const { groups, groupOf } = groupBudgets([lookup('a'), lookup('b'), lookup('a'), lookup('a')]);
    // totals after the statement: client a reached 121, client b 7
    expect(assignHits(groups, groupOf, [121, 7])).toEqual([119, 7, 120, 121]);
  });

  it('should refuse exactly the requests past the limit when a batch crosses it', () => {
    const { groups, groupOf } = groupBudgets(Array.from({ length: 5 }, () => lookup('a')));
    const hits = assignHits(groups, groupOf, [122]);
    expect(hits.filter((h) => h > 120)).toHaveLength(2);
  });
});

describe(PollBatcher.name, () => {
  const hash = (hex: string) => Buffer.from(hex, 'hex');

  it('should give each poll its own hit number and its own code from one statement', async () => {
    const run = jest.fn<ReturnType<RunPollBatch>, Parameters<RunPollBatch>>(async (groups) => ({
      hits: groups.map((g, i) => [i + 1, 10 + g.count, 30] as [number, number, number]),
      codes: [{ hash: 'aa', id: '1' } as PollBatchRows['codes'][number]],
    }));
    const sut = new PollBatcher(run, 1);
    const [first, second] = await Promise.all([
      sut.lookup({ scope: 'poll', clientKey: 'a', hash: hash('aa') }),
      sut.lookup({ scope: 'poll', clientKey: 'a', hash: hash('bb') }),
    ]);
    expect(first).toMatchObject({ hits: 11, retryAfter: 30, code: { id: '1' } });
    expect(second.code).toBeNull();
    expect(run.mock.calls.flatMap(([groups]) => groups.map((g) => g.count))).toEqual([1, 1]);
  });

  it('should fail every poll of a batch whose statement fails', async () => {
    const sut = new PollBatcher(async () => Promise.reject(new Error('connection reset')));
    await expect(sut.lookup({ scope: 'poll', clientKey: 'a', hash: hash('aa') })).rejects.toThrow('connection reset');
  });
});
