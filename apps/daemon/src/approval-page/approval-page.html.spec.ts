import { codeEntryPage, relativeTime, reviewPage, signInPage } from './approval-page.html';

const ctx = { server: 'svc.example.com', organization: 'Acme', actor: { name: 'ann', csrf: 'csrf-token' } };
const now = new Date('2026-01-01T00:00:00.000Z');
const details = { requestedFrom: '203.0.113.7', requestedAt: new Date('2025-12-31T23:58:00.000Z'), now };

describe(reviewPage.name, () => {
  it('should escape and sanitize machine-chosen text', () => {
    const html = reviewPage(
      ctx,
      {
        code: 'BCDF-GHJK',
        machine_name: '<script>alert(1)</script>\u202egnp.exe',
        machine_id: '"><img src=x>',
        expires_at: '2026-01-01T00:07:00.000Z',
        decision: 'pending',
      },
      details,
    );
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('\u202e');
    expect(html).toContain('BCDF-GHJK');
    expect(html).toContain('name="csrf" value="csrf-token"');
  });

  it('should name the server, organization, address, time and a relative expiry; deny looks secondary', () => {
    const html = reviewPage(
      ctx,
      {
        code: 'BCDF-GHJK',
        machine_name: 'm',
        machine_id: 'i',
        expires_at: '2026-01-01T00:07:00.000Z',
        decision: 'pending',
      },
      details,
    );
    expect(html).toContain('svc.example.com');
    expect(html).toContain('Acme');
    expect(html).toContain('203.0.113.7');
    expect(html).toContain('2 min ago');
    expect(html).toContain('expires in 7 min');
    expect(html).toMatch(/value="approve" class="primary"/);
    expect(html).toMatch(/value="deny" class="secondary"/);
    // sign-out sits in the header, before the decision buttons and outside their form
    expect(html.indexOf('Sign out')).toBeLessThan(html.indexOf('value="approve"'));
  });

  it('should offer no decision once a code is decided', () => {
    const html = reviewPage(
      ctx,
      { code: 'BCDF-GHJK', machine_name: 'm', machine_id: 'i', expires_at: 'x', decision: 'approved' },
      details,
    );
    expect(html).not.toContain('value="approve"');
  });
});

describe(signInPage.name, () => {
  it('should carry the code through sign-in, escaped, and offer company sign-in when configured', () => {
    const html = signInPage(ctx, 'BCDF-GHJK', { companySignIn: 'id.example.com' });
    expect(html).toContain('name="code" value="BCDF-GHJK"');
    expect(html).toContain('Sign in with id.example.com');
    expect(html).toContain('/machine-approval/oidc/start?code=BCDF-GHJK');
    expect(signInPage(ctx, null)).not.toContain('Sign in with');
  });
});

describe(codeEntryPage.name, () => {
  it('should pre-fill the code', () => {
    expect(codeEntryPage(ctx, { code: 'BCDF-GHJK' })).toContain('value="BCDF-GHJK"');
  });
});

describe(relativeTime.name, () => {
  it('should be coarse and signed', () => {
    expect(relativeTime(new Date(now.getTime() + 420_000), now)).toBe('in 7 min');
    expect(relativeTime(new Date(now.getTime() + 40_000), now)).toBe('in 40 s');
    expect(relativeTime(new Date(now.getTime() - 7_200_000), now)).toBe('2 h ago');
  });
});
