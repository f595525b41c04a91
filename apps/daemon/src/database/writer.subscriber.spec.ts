import type { DataSource, EntityManager, QueryRunner, TransactionStartEvent } from 'typeorm';

import { anonymousWriter, runInWrite, WriteContext } from './write-context';
import { namedWriter, recordAutocommitWrites, WriterSubscriber, writerSetting } from './writer.subscriber';

// A query runner that records what it sends and opens transactions the way TypeORM's Postgres runner does.
function fakeRunner(startWords = 'START TRANSACTION') {
  const sent: { sql: string; parameters?: unknown[] }[] = [];
  const subscriber = new WriterSubscriber();
  const runner = {
    depth: 0,
    query(sql: string, parameters?: unknown[]) {
      sent.push({ sql, parameters });
      return Promise.resolve([]);
    },
    async startTransaction(this: QueryRunner & { depth: number }) {
      const event = { queryRunner: this } as unknown as TransactionStartEvent;
      subscriber.beforeTransactionStart(event);
      await this.query(this.depth === 0 ? startWords : `SAVEPOINT typeorm_${this.depth}`);
      this.depth += 1;
      await subscriber.afterTransactionStart(event);
    },
  };
  return { runner: runner as unknown as QueryRunner & { depth: number }, sent };
}

const context = (): WriteContext => ({
  writer: { ...anonymousWriter('cli'), actor_id: 7, actor_name: "o'brien \\ admin" },
  mutation: true,
  passed: new Set(),
});

describe('WriterSubscriber', () => {
  it('names the writer in the same round trip as START TRANSACTION, quoted as a literal', async () => {
    const { runner, sent } = fakeRunner();
    await runInWrite(context(), () => runner.startTransaction());
    expect(sent).toHaveLength(1);
    expect(sent[0].parameters).toBeUndefined();
    expect(sent[0].sql).toBe(
      `START TRANSACTION; SELECT set_config('svc.writer', E'${JSON.stringify(context().writer)
        .replace(/\\/g, '\\\\')
        .replace(/'/g, "''")}', true)`,
    );
  });

  it('sets it on its own for a savepoint, and again for the next transaction on the same runner', async () => {
    const { runner, sent } = fakeRunner();
    await runInWrite(context(), async () => {
      await runner.startTransaction();
      await runner.startTransaction();
      await runner.query('SELECT 1');
    });
    expect(sent.map((s) => s.sql.split(';')[0])).toEqual([
      'START TRANSACTION',
      'SAVEPOINT typeorm_1',
      `SELECT set_config('svc.writer', $1, true)`,
      'SELECT 1',
    ]);
    expect(sent[2].parameters).toEqual([JSON.stringify(context().writer)]);
  });

  it('falls back to a statement of its own when the driver opens transactions in other words', async () => {
    const { runner, sent } = fakeRunner('BEGIN');
    await runInWrite(context(), () => runner.startTransaction());
    expect(sent.map((s) => s.sql)).toEqual(['BEGIN', `SELECT set_config('svc.writer', $1, true)`]);
  });

  it('sends nothing extra outside a write', async () => {
    const { runner, sent } = fakeRunner();
    await runner.startTransaction();
    expect(sent.map((s) => s.sql)).toEqual(['START TRANSACTION']);
  });
});

// Outside any transaction, a write's statement that may change rows gets a transaction of its own (START with the
// writer, the statement, COMMIT), unless it names its writer itself (ADR 0097): then it goes as it is, in one round trip.
describe('recordAutocommitWrites', () => {
  function fakeDataSource() {
    const sent: string[] = [];
    const dataSource = {
      query: (sql: string) => {
        sent.push(sql);
        return Promise.resolve([]);
      },
      transaction: async (work: (manager: EntityManager) => Promise<unknown>) => {
        sent.push('START TRANSACTION');
        const result = await work({ query: (sql: string) => (sent.push(sql), Promise.resolve([])) } as EntityManager);
        sent.push('COMMIT');
        return result;
      },
    };
    recordAutocommitWrites(dataSource as unknown as DataSource);
    return { dataSource: dataSource as unknown as DataSource, sent };
  }

  it('wraps a plain write in a transaction of its own, and sends a statement naming its writer as it is', async () => {
    const { dataSource, sent } = fakeDataSource();
    const named = `WITH ${namedWriter('$1')} UPDATE items SET frozen = 1 FROM writer WHERE id = $2`;
    await runInWrite(context(), async () => {
      await dataSource.query('UPDATE items SET frozen = 1 WHERE id = $1', [1]);
      await dataSource.query(named, [writerSetting(), 1]);
      await dataSource.query('SELECT 1');
    });
    expect(sent).toEqual([
      'START TRANSACTION',
      'UPDATE items SET frozen = 1 WHERE id = $1',
      'COMMIT',
      named,
      'SELECT 1',
    ]);
  });

  it("gives the current write's writer as the setting, and none outside a write", () => {
    expect(runInWrite(context(), () => writerSetting())).toBe(JSON.stringify(context().writer));
    expect(writerSetting()).toBe('');
  });
});
