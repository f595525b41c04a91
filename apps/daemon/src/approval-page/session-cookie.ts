// The session cookie holds one base64url value, so a strict reader and writer fit in a few lines.
const VALUE = /^[A-Za-z0-9_-]*$/;

export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    return VALUE.test(value) && value.length > 0 ? value : null;
  }
  return null;
}

export function sessionCookie(
  name: string,
  value: string,
  options: { path: string; maxAge: number; secure: boolean; sameSite?: 'Strict' | 'Lax' },
): string {
  if (!VALUE.test(value)) throw new Error('cookie value must be base64url');
  return [
    `${name}=${value}`,
    `Path=${options.path}`,
    `Max-Age=${options.maxAge}`,
    'HttpOnly',
    `SameSite=${options.sameSite ?? 'Strict'}`,
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}
