import { DataSource, EntitySubscriberInterface, EventSubscriber, TransactionStartEvent } from 'typeorm';

import { currentWrite } from './write-context';

// A transaction-local setting, gone at commit, never seen by the next user of the pooled connection.
@EventSubscriber()
export class WriterSubscriber implements EntitySubscriberInterface {
  afterTransactionStart(event: TransactionStartEvent): Promise<unknown> | void {
    const context = currentWrite();
    if (!context) return;
    return event.queryRunner.query(`SELECT set_config('svc.writer', $1, true)`, [JSON.stringify(context.writer)]);
  }
}

const WRITES_ROWS = /\b(INSERT|UPDATE|DELETE|MERGE)\b/i;

// A statement sent outside any transaction (dataSource.query) during a write would reach the triggers with no
// writer: inside a write, one that may change rows runs in a transaction of its own, which names the writer.
export function recordAutocommitWrites(dataSource: DataSource): void {
  const query = dataSource.query.bind(dataSource) as DataSource['query'];
  dataSource.query = ((sql: string, parameters?: unknown[], queryRunner?: Parameters<DataSource['query']>[2]) => {
    if (queryRunner || !currentWrite()?.mutation || !WRITES_ROWS.test(sql)) return query(sql, parameters, queryRunner);
    return dataSource.transaction((manager) => manager.query(sql, parameters));
  }) as DataSource['query'];
}
