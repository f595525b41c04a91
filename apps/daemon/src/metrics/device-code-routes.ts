const OPERATIONS: Record<string, 'start' | 'poll'> = {
  'POST /api/machine/authorizations': 'start',
  'POST /api/orgs/:slug/api/machine/authorizations': 'start',
  'POST /api/machine/authorizations/token': 'poll',
  'POST /api/orgs/:slug/api/machine/authorizations/token': 'poll',
};

export function deviceCodeOperation(method: string, route: string | undefined): 'start' | 'poll' | null {
  return route ? (OPERATIONS[`${method} ${route}`] ?? null) : null;
}

export function answerCode(payload: unknown): unknown {
  const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
  if (text === null || text.length > 4096) return undefined;
  try {
    return (JSON.parse(text) as { code?: unknown }).code;
  } catch {
    return undefined;
  }
}
