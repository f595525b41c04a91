// The device-code routes as the router registers them (patterns, never raw URLs): start and poll, self-host and
// hosted paths alike.
const OPERATIONS: Record<string, 'start' | 'poll'> = {
  'POST /api/machine/authorizations': 'start',
  'POST /api/orgs/:slug/api/machine/authorizations': 'start',
  'POST /api/machine/authorizations/token': 'poll',
  'POST /api/orgs/:slug/api/machine/authorizations/token': 'poll',
};

export function deviceCodeOperation(method: string, route: string | undefined): 'start' | 'poll' | null {
  return route ? (OPERATIONS[`${method} ${route}`] ?? null) : null;
}

// The `code` of an answer body (the device-code models always carry one on a refusal and on 202 pending).
export function answerCode(payload: unknown): unknown {
  const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
  if (text === null || text.length > 4096) return undefined;
  try {
    return (JSON.parse(text) as { code?: unknown }).code;
  } catch {
    return undefined;
  }
}
