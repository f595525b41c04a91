import type { ClientConfig, QueryResult } from 'pg';
import type { EntityManager } from 'typeorm';

import { PreparingClient } from './prepared-statements';

// A short transaction's START TRANSACTION and COMMIT ride with its statements (ADR 0101). On these two cores each
// statement is a socket write that wakes a backend, and a CPU profile of the daemon at 100k items put a quarter of its
// thread in `writev` under 32 writers: a priority write made five round trips, two of them a START and a COMMIT that
// nothing waits for.
//
// - START TRANSACTION (with the writer's setting, writer.subscriber.ts) is answered at once and sent with the
//   transaction's first statement, in one socket write, pipelined (`pg`'s pipeline mode: each with its own Sync, the
//   server answers them in order). A transaction that sends nothing before its COMMIT or ROLLBACK sends nothing.
// - A statement marked last (`lastStatement`) goes with the COMMIT, in one socket write: the transaction ends with it.
//   If the statement fails, the COMMIT of the failed transaction rolls it back and the statement's error is thrown; if
//   the COMMIT fails, its error is. The runner's own COMMIT or ROLLBACK that follows is answered here.
//
// START TRANSACTION cannot fail on a live connection (the writer's setting, in the same message, can only fail after
// it, which aborts the transaction and so the statement after it); on a dead one the statement fails too.

type Args = [text: unknown, values?: unknown, callback?: unknown];
type Query = (...args: Args) => unknown;

const START = /^START TRANSACTION\b/;
const END = /^(COMMIT|ROLLBACK)$/;

// what TypeORM's runner reads of a result: a statement answered without a round trip
const answered = (command: string): QueryResult =>
  ({ command, rowCount: null, oid: 0, rows: [], fields: [] }) as unknown as QueryResult;

export class PipeliningClient extends PreparingClient {
  private start: string | null = null;
  private commitNext = false;
  private committed = false;

  constructor(config?: string | ClientConfig) {
    super(config);
    const send = this.query.bind(this) as Query;
    this.query = ((...args: Args) => this.route(send, args)) as PipeliningClient['query'];
  }

  // The next statement is the transaction's last: its COMMIT goes with it.
  commitWithNext(): void {
    this.commitNext = true;
  }

  // A mark the statement did not take (it failed before it reached the client) is dropped.
  forgetCommit(): void {
    this.commitNext = false;
  }

  private route(send: Query, args: Args): unknown {
    const [text, values, callback] = args;
    const plain = typeof text === 'string' && typeof values !== 'function' && callback === undefined;
    if (!plain) return this.flushThen(send, args);
    if (this.committed) {
      this.committed = false;
      if (END.test(text)) return Promise.resolve(answered(text));
      return Promise.reject(new Error(`a statement after its transaction's last: ${text.slice(0, 60)}`));
    }
    if (values === undefined && START.test(text) && this.start === null && !this.commitNext) {
      this.start = text;
      return Promise.resolve(answered('BEGIN'));
    }
    if (values === undefined && END.test(text)) {
      // a mark no statement took (the statement failed before it was sent) ends here
      this.commitNext = false;
      if (this.start === null) return send(text, values);
      this.start = null;
      return Promise.resolve(answered(text));
    }
    const last = this.commitNext;
    this.commitNext = false;
    if (this.start === null && !last) return send(text, values);
    const batch: Args[] = this.start === null ? [] : [[this.start]];
    const answerAt = batch.length;
    batch.push([text, values]);
    if (last) batch.push(['COMMIT']);
    this.start = null;
    this.committed = last;
    return this.pipelined(send, batch, answerAt);
  }

  // Several statements in one socket write, answered in order: the answer is the one at `answerAt`, the error the
  // first one that failed.
  private async pipelined(send: Query, batch: Args[], answerAt: number): Promise<unknown> {
    const client = this as unknown as { pipeline: boolean; connection: { stream: { cork(): void; uncork(): void } } };
    const sent: Promise<unknown>[] = [];
    client.pipeline = true;
    client.connection.stream.cork();
    try {
      for (const args of batch) sent.push(new Promise((resolve) => resolve(send(...args))));
    } finally {
      client.connection.stream.uncork();
    }
    const settled = await Promise.allSettled(sent);
    client.pipeline = false;
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    return (settled[answerAt] as PromiseFulfilledResult<unknown>).value;
  }

  // A COPY stream or a callback-style query: a START still waiting goes first, queued as `pg` queues (its failure is
  // the connection's, which the query after it meets).
  private flushThen(send: Query, args: Args): unknown {
    if (this.start !== null) {
      const start = this.start;
      this.start = null;
      (send(start) as Promise<unknown>).catch(() => undefined);
    }
    return send(...args);
  }
}

// `send`, one statement through `manager`, is its transaction's last: the COMMIT goes in the same round trip (ADR
// 0101). Nothing after it may refuse the write: it has committed when `send` resolves. Outside a transaction, in a
// nested one, or on a client that does not pipeline, it is an ordinary statement.
export function lastStatement<T>(manager: EntityManager, send: () => Promise<T>): Promise<T> {
  const runner = manager.queryRunner as unknown as
    { isTransactionActive: boolean; transactionDepth: number; databaseConnection?: unknown } | undefined;
  const client = runner?.databaseConnection;
  if (!(runner?.isTransactionActive && runner.transactionDepth === 1 && client instanceof PipeliningClient)) {
    return send();
  }
  client.commitWithNext();
  return send().finally(() => client.forgetCommit());
}
