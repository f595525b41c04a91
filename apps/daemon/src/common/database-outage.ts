// Telling a database outage (the server is down, restarting, unreachable, or dropped our connection) from a fault of
// the request or of the code. An outage is answered 503 database_unavailable with Retry-After; anything else keeps
// its own answer. The pool drops broken connections by itself and opens new ones when the server is back.

// Seconds a client should wait before retrying while the database is unavailable.
export const DATABASE_RETRY_AFTER_SECONDS = 2;

// Socket-level failures: nothing listens (ECONNREFUSED, or ENOENT for a missing Unix socket), the link broke.
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ECONNABORTED',
]);

// SQLSTATE: class 08 (connection exception), 57P01..57P03 (admin shutdown, crash shutdown, cannot connect now:
// starting up, shutting down, in recovery), 53300 (too many connections while the server restarts its slots).
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

// node-postgres and TypeORM report some of these only in words.
const MESSAGES = [
  /connection terminated/i,
  /connection timeout/i,
  /timeout exceeded when trying to connect/i,
  /client has encountered a connection error and is not queryable/i,
  /cannot use a pool after calling end/i,
  /the database system is (starting up|shutting down|in recovery mode|not yet accepting connections)/i,
  /terminating connection due to administrator command/i,
  /server closed the connection unexpectedly/i,
  /driver not connected/i,
  /connect ECONNREFUSED/i,
];

// TypeORM releases a transaction's query runner when its connection dies (the server went away mid-transaction);
// the next statement, or the COMMIT, then fails with one of these. The transaction did not commit.
const RELEASED_RUNNER = new Set(['QueryRunnerAlreadyReleasedError', 'QueryRunnerProviderAlreadyReleasedError']);
const RELEASED_RUNNER_MESSAGES = [
  /query runner already released/i,
  /connection provided by a query runner was already released/i,
];

function causes(err: unknown): unknown[] {
  // TypeORM wraps the driver's error (QueryFailedError.driverError); Node wraps in AggregateError (.errors) and .cause.
  const seen: unknown[] = [];
  const queue = [err];
  while (queue.length > 0 && seen.length < 16) {
    const next = queue.shift();
    if (next === null || typeof next !== 'object' || seen.includes(next)) continue;
    seen.push(next);
    const e = next as { driverError?: unknown; cause?: unknown; errors?: unknown };
    queue.push(e.driverError, e.cause);
    if (Array.isArray(e.errors)) queue.push(...(e.errors as unknown[]));
  }
  return seen;
}

export function isDatabaseUnavailable(err: unknown): boolean {
  return causes(err).some((e) => {
    const { code, message, syscall, name } = e as {
      code?: unknown;
      message?: unknown;
      syscall?: unknown;
      name?: unknown;
    };
    if (typeof name === 'string' && RELEASED_RUNNER.has(name)) return true;
    if (typeof message === 'string' && RELEASED_RUNNER_MESSAGES.some((p) => p.test(message))) return true;
    // A missing Unix socket file: only when connecting (any other missing file is not an outage).
    if (code === 'ENOENT' && syscall === 'connect') return true;
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) {
      return true;
    }
    return typeof message === 'string' && MESSAGES.some((pattern) => pattern.test(message));
  });
}

// SQLSTATE class 22 (data exception: a number out of its column's range, a string the encoding cannot hold, text
// that is not a valid value of its type). Input checks at the edge refuse these first; this is the safety net that
// keeps one that slipped through a 400 instead of a 500.
export function isDataException(err: unknown): boolean {
  return causes(err).some((e) => {
    const { code } = e as { code?: unknown };
    return typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code);
  });
}
