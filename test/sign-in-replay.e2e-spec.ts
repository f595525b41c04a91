import { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { BrowserContext, chromium, Page } from 'playwright-core';

import { createTestDatabase, DaemonProcess, startDaemonProcess, TestDatabase } from '@app/testing';
import { awaitRoomInMinute, http, sql } from '@app/testing/machine-auth';

import { CHROMIUM, CHROMIUM_ARGS, CLIENT_ID, CLIENT_SECRET, freePort, startProvider } from './support/company-sign-in';

jest.setTimeout(180000);

// Issue 24: company sign-in state is kept server-side and used once, so a callback replayed against a provider that
// redeems an authorization code twice opens no second session.
describe('company sign-in replay', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let provider: { issuer: string; child: ChildProcess };
  let browser: BrowserContext;
  let profile: string;
  let callbackBase: string;

  beforeAll(async () => {
    db = await createTestDatabase('server', 'sign_in_replay');
    const port = await freePort();
    callbackBase = `http://127.0.0.1:${port}/machine-approval/oidc/callback`;
    provider = await startProvider(
      callbackBase,
      { 'carol-sub': { email: 'carol@example.com', email_verified: true } },
      { allowCodeReuse: true },
    );
    daemon = await startDaemonProcess({
      port,
      env: {
        SVC_DATABASE_URL: db.url,
        SVC_SERVER_SECRET: 'e2e-sign-in-replay-secret-0123456789abcdef',
        SVC_OIDC_ISSUER: provider.issuer,
        SVC_OIDC_CLIENT_ID: CLIENT_ID,
        SVC_OIDC_CLIENT_SECRET: CLIENT_SECRET,
        SVC_OIDC_ALLOWED_DOMAINS: 'example.com',
        SVC_API_TRUSTED_PROXIES: '127.0.0.1,::1',
      },
    });
    profile = mkdtempSync(join(tmpdir(), 'svc-chromium-'));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
    });
  }, 120000);

  afterAll(async () => {
    await browser?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    provider?.child.kill('SIGTERM');
    await daemon?.stop();
    await db?.drop();
  });

  const sessions = async () =>
    (
      await sql<{ n: number }>(
        db.url,
        `SELECT count(*)::int AS n FROM approval_sessions s JOIN actors a ON a.id = s.actor_id WHERE a.name = 'carol'`,
      )
    )[0].n;

  // Signs in at the provider, but the browser comes back without its binding cookie (refused, nothing spent): the
  // test then holds the callback URL (with the provider's code and state) and the binding value, as an eavesdropper
  // on that browser would.
  async function signInAtProvider(page: Page): Promise<{ callback: string; binding: string }> {
    let callback = '';
    page.on('request', (request) => {
      if (request.url().startsWith(`${callbackBase}?`)) callback = request.url();
    });
    await page.goto(`${daemon.url}/machine-approval`);
    await page.getByRole('link', { name: /^Sign in with / }).click();
    const binding = (await browser.cookies(callbackBase)).find((c) => c.name === 'svc_oidc')?.value ?? '';
    expect(binding).not.toBe('');
    await page.locator('input[name=login]').fill('carol-sub');
    await page.locator('input[name=password]').fill('anything');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await browser.clearCookies({ name: 'svc_oidc' });
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText('unauthorized').waitFor();
    expect(callback).not.toBe('');
    return { callback, binding };
  }

  // The browser that began the sign-in gets its binding cookie back and follows the callback.
  async function finishInBrowser(page: Page, callback: string, binding: string): Promise<void> {
    await browser.addCookies([
      { name: 'svc_oidc', value: binding, url: callbackBase, httpOnly: true, sameSite: 'Lax' },
    ]);
    await page.goto(callback);
    await page.getByText('Enter the code your machine shows').waitFor();
    expect(await page.locator('header').innerText()).toContain('carol');
  }

  const replay = (callback: string, binding: string) =>
    http(daemon.url, 'GET', callback.slice(daemon.url.length), { headers: { cookie: `svc_oidc=${binding}` } });

  function expectRefused(res: Awaited<ReturnType<typeof replay>>): void {
    expect(res.status).toBe(401);
    expect(res.text).toContain('sign_in_failed');
    expect(res.headers.get('set-cookie') ?? '').not.toContain('svc_approval=');
  }

  it('should refuse a callback replayed with the same URL and cookie after a successful sign-in', async () => {
    await browser.clearCookies();
    const page = await browser.newPage();
    const { callback, binding } = await signInAtProvider(page);
    expect(new URL(callback).searchParams.get('code')).toBeTruthy();

    // The browser finishes its sign-in: one session.
    await finishInBrowser(page, callback, binding);
    expect(await sessions()).toBe(1);

    // The same callback again, with the same binding cookie: the provider would redeem the code again, the
    // daemon refuses and opens no session.
    expectRefused(await replay(callback, binding));
    expectRefused(await replay(callback, binding));
    expect(await sessions()).toBe(1);
    await page.close();
  });

  it('should refuse the callback from another browser without spending the sign-in of the one that began it', async () => {
    await browser.clearCookies();
    const before = await sessions();
    const page = await browser.newPage();
    const { callback, binding } = await signInAtProvider(page);

    // Another browser's (or no) binding cookie: refused, nothing opened.
    expectRefused(await replay(callback, 'A'.repeat(43)));
    const bare = await http(daemon.url, 'GET', callback.slice(daemon.url.length));
    expect(bare.status).toBe(401);
    expect(await sessions()).toBe(before);

    // The browser that began it still finishes.
    await finishInBrowser(page, callback, binding);
    expect(await sessions()).toBe(before + 1);
    await page.close();
  });

  it('should refuse a callback whose sign-in has expired', async () => {
    await browser.clearCookies();
    const before = await sessions();
    const page = await browser.newPage();
    const { callback, binding } = await signInAtProvider(page);
    await sql(db.url, `UPDATE oidc_sign_in_states SET expires_at = now() - interval '1 second'`);
    expectRefused(await replay(callback, binding));
    expect(await sessions()).toBe(before);
    await page.close();
  });

  it('should limit the company sign-ins one address starts in a minute', async () => {
    await awaitRoomInMinute(db.url);
    const start = (clientIp: string) => http(daemon.url, 'GET', '/machine-approval/oidc/start', { clientIp });
    for (let i = 0; i < 20; i += 1) expect((await start('192.0.2.50')).status).toBe(303);
    const refused = await start('192.0.2.50');
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('sign_in_rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Another address is not affected.
    expect((await start('192.0.2.51')).status).toBe(303);
  });
});
