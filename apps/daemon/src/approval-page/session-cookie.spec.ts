import { readCookie, sessionCookie } from './session-cookie';

describe(readCookie.name, () => {
  it('should read the named cookie among others', () => {
    expect(readCookie('a=1; svc_approval=abc_-9; b=2', 'svc_approval')).toBe('abc_-9');
  });

  it('should ignore missing, empty and non-base64url values', () => {
    expect(readCookie(undefined, 'x')).toBeNull();
    expect(readCookie('x=', 'x')).toBeNull();
    expect(readCookie('x=a%20b', 'x')).toBeNull();
  });
});

describe(sessionCookie.name, () => {
  it('should be HttpOnly and SameSite=Strict, Secure only on https', () => {
    const cookie = sessionCookie('s', 'v', { path: '/p', maxAge: 10, secure: false });
    expect(cookie).toBe('s=v; Path=/p; Max-Age=10; HttpOnly; SameSite=Strict');
    expect(sessionCookie('s', 'v', { path: '/p', maxAge: 10, secure: true })).toMatch(/; Secure$/);
  });
});
