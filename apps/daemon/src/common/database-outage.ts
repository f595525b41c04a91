// An outage is answered 503 database_unavailable with Retry-After; the pool reconnects by itself.

export const DATABASE_RETRY_AFTER_SECONDS = 2;

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

// 57P01..57P03: admin or crash shutdown, cannot connect now; 53300: too many connections during a restart.
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

// TypeORM releases the runner of a transaction whose connection died; the next statement throws one of these.
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

// SQLSTATE class 22: edge checks refuse these first; this keeps one that slipped through a 400, not a 500.
export function isDataException(err: unknown): boolean {
  return causes(err).some((e) => {
    const { code } = e as { code?: unknown };
    return typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code);
  });
}
