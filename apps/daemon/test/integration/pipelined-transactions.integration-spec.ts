import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';

import { dataSourceOptions } from '../../src/database/data-source';
import { lastStatement, PipeliningClient } from '../../src/database/pipelined-transactions';
import { anonymousWriter, runInWrite, WriteContext } from '../../src/database/write-context';
import { createMediumDatabase, MediumDatabase } from './setup/medium';

// The daemon's pool (one connection, so every transaction below is on the same client) against a real PostgreSQL:
// what a transaction commits, what it rolls back, and how many socket writes it took (ADR 0101).
describe('a transaction whose START and COMMIT ride with its statements (PipeliningClient, ADR 0101)', () => {
  let db: MediumDatabase;
  let daemon: DataSource;
  let other: Client;
  const table = `pipelined_${randomBytes(4).toString('hex')}`;
  let writes = 0;

  const rows = async (): Promise<number[]> =>
    (await other.query(`SELECT v FROM ${table} ORDER BY v`)).rows.map((r: { v: number }) => r.v);
  // socket writes made by the daemon's connection while `work` runs
  const counted = async <T>(work: () => Promise<T>): Promise<{ value: T; writes: number }> => {
    const before = writes;
    const value = await work();
    return { value, writes: writes - before };
  };

  beforeAll(async () => {
    db = await createMediumDatabase('pipelined');
    const url = db.url;
    other = new Client({ connectionString: url });
    await other.connect();
    await other.query(`CREATE TABLE ${table}_parent (v int PRIMARY KEY)`);
    await other.query(
      `CREATE TABLE ${table} (v int PRIMARY KEY CHECK (v < 1000),
         parent int REFERENCES ${table}_parent DEFERRABLE INITIALLY DEFERRED)`,
    );
    daemon = await new DataSource(dataSourceOptions(url, 1, true)).initialize();
    // the one pooled connection's socket: every flush to PostgreSQL is one _write or _writev
    const runner = daemon.createQueryRunner();
    const client = (await runner.connect()) as PipeliningClient & { connection: { stream: Record<string, unknown> } };
    expect(client).toBeInstanceOf(PipeliningClient);
    const stream = client.connection.stream as Record<string, (...args: unknown[]) => unknown>;
    for (const method of ['_write', '_writev']) {
      const original = stream[method].bind(stream);
      stream[method] = (...args: unknown[]) => {
        writes += 1;
        return original(...args);
      };
    }
    await runner.release();
  });

  afterAll(async () => {
    await daemon?.destroy();
    await other?.end();
    await db?.close();
  });

  beforeEach(async () => {
    await other.query(`TRUNCATE ${table}`);
  });

  it('a field edit takes two socket writes: START with its first statement, its last with the COMMIT', async () => {
    const { value, writes: made } = await counted(() =>
      daemon.transaction(async (manager) => {
        const [{ n }] = await manager.query(`SELECT count(*)::int AS n FROM ${table} WHERE v = $1`, [1]);
        return lastStatement(manager, () =>
          manager.query(`INSERT INTO ${table} (v) VALUES ($1) RETURNING v, $2::int AS seen`, [1, n]),
        );
      }),
    );
    expect(value).toEqual([{ v: 1, seen: 0 }]);
    expect(made).toBe(2);
    expect(await rows()).toEqual([1]);
  });

  it('the statements run inside the transaction, with the writer set by START', async () => {
    const writer = { ...anonymousWriter('cli'), actor_id: 7, actor_name: 'pipe\'lined \\ " ünï' };
    const context: WriteContext = { writer, mutation: true, passed: new Set() };
    const [seen] = await runInWrite(context, () =>
      daemon.transaction((manager) => manager.query(`SELECT current_setting('svc.writer', true) AS writer`, [])),
    );
    expect(JSON.parse(seen.writer)).toEqual(writer);
    // one transaction across statements: now() is its start, not the second statement's
    const [{ same }] = await daemon.transaction(async (manager) => {
      await manager.query(`SELECT pg_sleep(0.01)`, []);
      return manager.query(`SELECT now() <> statement_timestamp() AS same`, []);
    });
    expect(same).toBe(true);
  });

  it('a transaction that sends nothing sends nothing, and a failed first statement rolls back', async () => {
    expect((await counted(() => daemon.transaction(async () => 'nothing'))).writes).toBe(0);
    const failing = daemon.transaction(async (manager) => {
      await manager.query(`INSERT INTO ${table} (v) VALUES ($1)`, [5000]);
    });
    await expect(failing).rejects.toThrow(QueryFailedError);
    await expect(failing).rejects.toMatchObject({ driverError: { code: '23514' } });
    expect(await rows()).toEqual([]);
  });

  it('a failed last statement rolls back what came before it; the connection goes on', async () => {
    const write = daemon.transaction(async (manager) => {
      await manager.query(`INSERT INTO ${table} (v) VALUES ($1)`, [2]);
      await lastStatement(manager, () => manager.query(`INSERT INTO ${table} (v) VALUES ($1)`, [2000]));
    });
    await expect(write).rejects.toMatchObject({ driverError: { code: '23514' } });
    expect(await rows()).toEqual([]);
    await daemon.transaction((manager) =>
      lastStatement(manager, () => manager.query(`INSERT INTO ${table} (v) VALUES ($1)`, [3])),
    );
    expect(await rows()).toEqual([3]);
    const [{ state }] = await daemon.query(`SELECT pg_current_xact_id_if_assigned() IS NULL AS state`);
    expect(state).toBe(true);
  });

  it("a COMMIT that fails is the write's error, and nothing is kept", async () => {
    const write = daemon.transaction(async (manager) => {
      await manager.query(`INSERT INTO ${table} (v) VALUES ($1)`, [4]);
      // the deferred foreign key is checked at COMMIT
      return lastStatement(manager, () =>
        manager.query(`INSERT INTO ${table} (v, parent) VALUES ($1, $2) RETURNING v`, [6, 99]),
      );
    });
    await expect(write).rejects.toMatchObject({ driverError: { code: '23503' } });
    expect(await rows()).toEqual([]);
    await daemon.query(`INSERT INTO ${table} (v) VALUES ($1)`, [7]);
    expect(await rows()).toEqual([7]);
  });

  it('a statement after the last is refused and nothing more is written', async () => {
    const write = daemon.transaction(async (manager: EntityManager) => {
      await lastStatement(manager, () => manager.query(`INSERT INTO ${table} (v) VALUES ($1)`, [8]));
      await manager.query(`INSERT INTO ${table} (v) VALUES ($1)`, [9]);
    });
    await expect(write).rejects.toThrow(/after its transaction's last/);
    // the last statement had committed with its COMMIT
    expect(await rows()).toEqual([8]);
    await daemon.query(`INSERT INTO ${table} (v) VALUES ($1)`, [10]);
    expect(await rows()).toEqual([8, 10]);
  });

  it('a last statement that fails before it is sent leaves the transaction and the next ones as they were', async () => {
    const write = daemon.transaction(async (manager) => {
      await manager.query(`INSERT INTO ${table} (v) VALUES ($1)`, [14]);
      await lastStatement(manager, () => Promise.reject(new Error('refused before sending')));
    });
    await expect(write).rejects.toThrow('refused before sending');
    expect(await rows()).toEqual([]);
    const { writes: made } = await counted(() =>
      daemon.transaction(async (manager) => {
        await manager.query(`INSERT INTO ${table} (v) VALUES ($1)`, [15]);
        await manager.query(`INSERT INTO ${table} (v) VALUES ($1)`, [16]);
      }),
    );
    // START with the first, the second, COMMIT on its own
    expect(made).toBe(3);
    expect(await rows()).toEqual([15, 16]);
  });

  it('in a nested transaction the last statement does not commit the outer one', async () => {
    const write = daemon.transaction(async (manager) => {
      await manager.transaction(async (inner) =>
        lastStatement(inner, () => inner.query(`INSERT INTO ${table} (v) VALUES ($1)`, [11])),
      );
      await manager.query(`INSERT INTO ${table} (v) VALUES ($1)`, [1001]);
    });
    await expect(write).rejects.toMatchObject({ driverError: { code: '23514' } });
    expect(await rows()).toEqual([]);
  });

  it('outside a transaction the last statement is an ordinary one', async () => {
    await lastStatement(daemon.manager, () => daemon.query(`INSERT INTO ${table} (v) VALUES ($1)`, [12]));
    await daemon.query(`INSERT INTO ${table} (v) VALUES ($1)`, [13]);
    expect(await rows()).toEqual([12, 13]);
  });
});
