export interface PollLookup {
  scope: string;
  clientKey: string;
  hash: Buffer;
}

export interface RawPollCode {
  id: string;
  status: 'pending' | 'approved' | 'denied' | 'consumed';
  live: boolean;
  machine_id: string;
  machine_name: string;
  organization_id: number | null;
  slug: string | null;
  decided_by: number | null;
  expires_at: string;
}

export interface PollAnswer {
  hits: number;
  retryAfter: number;
  code: RawPollCode | null;
}

interface Waiting extends PollLookup {
  resolve: (outcome: PollAnswer) => void;
  reject: (err: unknown) => void;
}

export interface BudgetGroup {
  scope: string;
  subject: string;
  count: number;
}

// Requests of one batch grouped by budget: the statement adds `count` at once and returns the total, and the
// requests of a group take the positions total-count+1 … total in arrival order, so each one's hit number is exact.
export function groupBudgets(lookups: readonly PollLookup[]): { groups: BudgetGroup[]; groupOf: number[] } {
  const index = new Map<string, number>();
  const groups: BudgetGroup[] = [];
  const groupOf: number[] = [];
  for (const lookup of lookups) {
    const key = `${lookup.scope}\u0000${lookup.clientKey}`;
    let g = index.get(key);
    if (g === undefined) {
      g = groups.length;
      index.set(key, g);
      groups.push({ scope: lookup.scope, subject: lookup.clientKey, count: 0 });
    }
    groups[g].count += 1;
    groupOf.push(g);
  }
  return { groups, groupOf };
}

export function assignHits(groups: readonly BudgetGroup[], groupOf: readonly number[], totals: readonly number[]) {
  const taken = new Array<number>(groups.length).fill(0);
  return groupOf.map((g) => {
    taken[g] += 1;
    return totals[g] - groups[g].count + taken[g];
  });
}

export interface PollBatchRows {
  hits: [ordinal: number, hits: number, retryAfter: number][];
  codes: (RawPollCode & { hash: string })[];
}

export type RunPollBatch = (groups: readonly BudgetGroup[], hashes: Buffer[]) => Promise<PollBatchRows>;

// Group commit: while a statement is in flight polls queue and the next statement serves them all, turning
// thousands of statements a second into a few hundred. One atomic increment per client a batch keeps budgets exact.
export class PollBatcher {
  private queue: Waiting[] = [];
  private inFlight = 0;

  constructor(
    private readonly run: RunPollBatch,
    private readonly maxInFlight = 2,
    private readonly maxBatch = 512,
  ) {}

  lookup(request: PollLookup): Promise<PollAnswer> {
    return new Promise<PollAnswer>((resolve, reject) => {
      this.queue.push({ ...request, resolve, reject });
      if (this.inFlight < this.maxInFlight) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.maxBatch);
    this.inFlight += 1;
    try {
      const { groups, groupOf } = groupBudgets(batch);
      const hashes = [...new Set(batch.map((w) => w.hash.toString('hex')))].map((h) => Buffer.from(h, 'hex'));
      const rows = await this.run(groups, hashes);
      const totals = new Array<number>(groups.length).fill(0);
      const retryAfter = new Array<number>(groups.length).fill(1);
      for (const [ordinal, hits, retry] of rows.hits) {
        totals[ordinal - 1] = hits;
        retryAfter[ordinal - 1] = retry;
      }
      const codes = new Map<string, RawPollCode>();
      for (const code of rows.codes) codes.set(code.hash, code);
      const positions = assignHits(groups, groupOf, totals);
      batch.forEach((waiting, i) =>
        waiting.resolve({
          hits: positions[i],
          retryAfter: retryAfter[groupOf[i]],
          code: codes.get(waiting.hash.toString('hex')) ?? null,
        }),
      );
    } catch (err) {
      for (const waiting of batch) waiting.reject(err);
    } finally {
      this.inFlight -= 1;
      if (this.queue.length > 0) void this.flush();
    }
  }
}
