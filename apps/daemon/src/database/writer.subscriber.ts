import { DataSource, EntitySubscriberInterface, EventSubscriber, QueryRunner, TransactionStartEvent } from 'typeorm';

import { currentWrite } from './write-context';

const START = 'START TRANSACTION';

// A string literal in escape syntax: quotes and backslashes doubled. pg's escapeLiteral builds it a character at a
// time, a string per character of the writer's JSON (about 5 KB of garbage a write).
function literal(value: string): string {
  return `E'${value.replace(/['\\]/g, '$&$&')}'`;
}

const pendingWriter = new WeakMap<QueryRunner, string>();
const joined = new WeakSet<QueryRunner>();

// A transaction-local setting, gone at commit, never seen by the next user of the pooled connection. It rides in the
// same round trip as START TRANSACTION (one simple-query message, two statements): a write's every statement costs a
// socket write and a wake-up of its backend, which on a busy machine is most of what a small write costs.
@EventSubscriber()
export class WriterSubscriber implements EntitySubscriberInterface {
  beforeTransactionStart(event: TransactionStartEvent): void {
    const context = currentWrite();
    if (!context) return;
    const runner = event.queryRunner;
    pendingWriter.set(runner, JSON.stringify(context.writer));
    if (joined.has(runner)) return;
    joined.add(runner);
    const query = runner.query.bind(runner) as (...args: unknown[]) => Promise<unknown>;
    runner.query = ((sql: string, ...rest: unknown[]) => {
      const writer = pendingWriter.get(runner);
      if (writer === undefined || sql !== START || rest[0] !== undefined) return query(sql, ...rest);
      pendingWriter.delete(runner);
      return query(`${START}; SELECT set_config('svc.writer', ${literal(writer)}, true)`, ...rest);
    }) as QueryRunner['query'];
  }

  // A nested transaction (a savepoint) or a driver that opens transactions in other words: the setting on its own.
  afterTransactionStart(event: TransactionStartEvent): Promise<unknown> | void {
    const writer = pendingWriter.get(event.queryRunner);
    if (writer === undefined) return;
    pendingWriter.delete(event.queryRunner);
    return event.queryRunner.query(`SELECT set_config('svc.writer', $1, true)`, [writer]);
  }
}

// One statement outside any transaction that names its writer itself (ADR 0097): `WITH ${namedWriter('$1')}, ...`,
// its rows joined to `writer` (`FROM writer`), `$1` = `writerSetting()`. The setting is made before any row is written
// (no row comes out of the join before it) and lasts the statement's own transaction, where the change-record
// triggers (AFTER ... FOR EACH STATEMENT) read it: one round trip where a transaction of its own takes three.
const NAMED_WRITER = "SELECT set_config('svc.writer', ";

export function namedWriter(parameter: string): string {
  return `writer AS MATERIALIZED (${NAMED_WRITER}${parameter}, true))`;
}

// The current write's writer as the triggers read it; '' outside a write (the triggers then record path `sql`).
export function writerSetting(): string {
  const context = currentWrite();
  return context ? JSON.stringify(context.writer) : '';
}

const WRITES_ROWS = /\b(INSERT|UPDATE|DELETE|MERGE)\b/i;

// A statement sent outside any transaction (dataSource.query) during a write would reach the triggers with no
// writer: inside a write, one that may change rows runs in a transaction of its own, which names the writer, unless
// the statement names it itself (namedWriter).
export function recordAutocommitWrites(dataSource: DataSource): void {
  const query = dataSource.query.bind(dataSource) as DataSource['query'];
  dataSource.query = ((sql: string, parameters?: unknown[], queryRunner?: Parameters<DataSource['query']>[2]) => {
    if (queryRunner || !currentWrite()?.mutation || !WRITES_ROWS.test(sql) || sql.includes(NAMED_WRITER)) {
      return query(sql, parameters, queryRunner);
    }
    return dataSource.transaction((manager) => manager.query(sql, parameters));
  }) as DataSource['query'];
}
