import { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { BrowserContext, chromium } from 'playwright-core';

import { createTestDatabase, DaemonProcess, startDaemonProcess, TestDatabase } from '@app/testing';
import { http, pollMachineAuthorization, sql, startMachineAuthorization } from '@app/testing/machine-auth';

import { CHROMIUM, CHROMIUM_ARGS, CLIENT_ID, CLIENT_SECRET, freePort, startProvider } from './support/company-sign-in';

// Each test drives several real svc processes (and a browser or a terminal): generous on a loaded machine.
jest.setTimeout(180000);

describe('company sign-in on the approval page', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let provider: { issuer: string; child: ChildProcess };
  let browser: BrowserContext;
  let profile: string;

  beforeAll(async () => {
    db = await createTestDatabase('server', 'company_sign_in');
    const port = await freePort();
    provider = await startProvider(`http://127.0.0.1:${port}/machine-approval/oidc/callback`, {
      'carol-sub': { email: 'Carol@Example.com', email_verified: true },
      'erin-sub': { email: 'erin@elsewhere.org', email_verified: true },
      'dave-sub': { email: 'dave@elsewhere.org', email_verified: true },
    });
    daemon = await startDaemonProcess({
      port,
      env: {
        SVC_DATABASE_URL: db.url,
        SVC_SERVER_SECRET: 'e2e-company-sign-in-secret-0123456789abcdef',
        SVC_OIDC_ISSUER: provider.issuer,
        SVC_OIDC_CLIENT_ID: CLIENT_ID,
        SVC_OIDC_CLIENT_SECRET: CLIENT_SECRET,
        SVC_OIDC_ALLOWED_DOMAINS: 'example.com',
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

  it('should announce company sign-in in discovery', async () => {
    const res = await http(daemon.url, 'GET', '/api/machine/authorizations');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ device_code: true, company_sign_in: true });
  });

  it('should sign a person in through the provider, provision her and let her approve her own code', async () => {
    const machine = { id: 'carol-laptop-id', name: 'carol-laptop' };
    const started = await startMachineAuthorization(daemon.url, machine);
    expect(started.status).toBe(201);
    const code = started.body.user_code;
    const page = await browser.newPage();
    // ?user_code= in lower case with a space pre-fills the form instead of erroring
    const typed = `${code.slice(0, 4)} ${code.slice(5)}`.toLowerCase();
    const landing = await page.goto(`${daemon.url}/machine-approval?user_code=${encodeURIComponent(typed)}`);
    expect(landing!.status()).toBe(200);
    const signIn = page.getByRole('link', { name: `Sign in with ${new URL(provider.issuer).host}` });
    expect(await page.locator('input[name=code]').inputValue()).toBe(code);
    await signIn.click();
    await page.locator('input[name=login]').fill('carol-sub');
    await page.locator('input[name=password]').fill('anything');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${daemon.url}/machine-approval/${code}`).catch(async (err: Error) => {
      throw new Error(`${err.message}\nat ${page.url()}:\n${await page.locator('body').innerText()}`);
    });
    const review = await page.locator('body').innerText();
    expect(review).toContain(code);
    expect(review).toContain('carol-laptop');
    expect(review).toContain('carol-laptop-id');
    expect(review).toContain(new URL(daemon.url).host);
    expect(review).toMatch(/expires in \d+ (min|s)/);
    expect(review).toContain('127.0.0.1');
    const cookies = await browser.cookies(`${daemon.url}/machine-approval/oidc/callback`);
    expect(cookies.find((c) => c.name === 'svc_approval')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(cookies.find((c) => c.name === 'svc_oidc')).toBeUndefined();

    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Machine approved').waitFor();

    const poll = await pollMachineAuthorization(daemon.url, started.body.device_code, machine);
    expect(poll.status).toBe(200);
    const me = await http<{ name: string; via: string }>(daemon.url, 'GET', '/v1/whoami', {
      token: (poll.body as { token: string }).token,
    });
    expect(me.body).toMatchObject({ name: 'carol', via: 'machine_credential' });
    const [row] = await sql<{ email: string; role: string; oidc_subject: string }>(
      db.url,
      `SELECT a.email, m.role, a.oidc_subject FROM actors a JOIN memberships m ON m.actor_id = a.id WHERE a.name = 'carol'`,
    );
    expect(row).toEqual({ email: 'carol@example.com', role: 'member', oidc_subject: 'carol-sub' });
    await page.close();
  });

  it('should refuse a person outside the admission rule', async () => {
    await browser.clearCookies();
    const page = await browser.newPage();
    await page.goto(`${daemon.url}/machine-approval`);
    await page.getByRole('link', { name: /^Sign in with / }).click();
    await page.locator('input[name=login]').fill('erin-sub');
    await page.locator('input[name=password]').fill('anything');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText('sign_in_not_admitted').waitFor();
    expect(await page.locator('body').innerText()).toContain('erin@elsewhere.org is not admitted');
    const [{ count }] = await sql<{ count: string }>(
      db.url,
      `SELECT count(*) FROM actors WHERE email = 'erin@elsewhere.org'`,
    );
    expect(count).toBe('0');
    await page.close();
  });

  it('should link an invited person to the actor an admin created with her email', async () => {
    const invited = await http(daemon.url, 'POST', '/v1/actors', {
      token: daemon.token!,
      body: { name: 'dave', email: 'Dave@Elsewhere.org' },
    });
    expect(invited.status).toBe(201);
    await browser.clearCookies();
    const page = await browser.newPage();
    await page.goto(`${daemon.url}/machine-approval`);
    await page.getByRole('link', { name: /^Sign in with / }).click();
    await page.locator('input[name=login]').fill('dave-sub');
    await page.locator('input[name=password]').fill('anything');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText('Enter the code your machine shows').waitFor();
    expect(await page.locator('header').innerText()).toContain('dave');
    const rows = await sql<{ name: string; oidc_subject: string }>(
      db.url,
      `SELECT name, oidc_subject FROM actors WHERE email = 'dave@elsewhere.org'`,
    );
    expect(rows).toEqual([{ name: 'dave', oidc_subject: 'dave-sub' }]);
    await page.close();
  });

  it('should answer oidc_misconfigured when sign-in is partly configured', async () => {
    const partial = await startDaemonProcess({
      env: {
        SVC_DATABASE_URL: db.url,
        SVC_SERVER_SECRET: 'e2e-company-sign-in-secret-0123456789abcdef',
        SVC_OIDC_ISSUER: provider.issuer,
        SVC_OIDC_CLIENT_ID: CLIENT_ID,
      },
    });
    try {
      const res = await http(partial.url, 'GET', '/api/machine/authorizations');
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ code: 'oidc_misconfigured' });
      expect(String((res.body as { message: string }).message)).toContain('SVC_OIDC_CLIENT_SECRET');
      const page = await http(partial.url, 'GET', '/machine-approval');
      expect(page.text).not.toContain('Sign in with');
    } finally {
      await partial.stop();
    }
  });
});
