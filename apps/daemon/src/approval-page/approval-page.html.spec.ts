import { reviewPage, signInPage } from './approval-page.html';

describe(reviewPage.name, () => {
  it('should escape and sanitize machine-chosen text', () => {
    const html = reviewPage(
      'ann',
      {
        code: 'BCDF-GHJK',
        machine_name: '<script>alert(1)</script>\u202egnp.exe',
        machine_id: '"><img src=x>',
        expires_at: '2026-01-01T00:00:00.000Z',
        decision: 'pending',
      },
      'csrf-token',
    );
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('\u202e');
    expect(html).toContain('BCDF-GHJK');
    expect(html).toContain('name="csrf" value="csrf-token"');
  });

  it('should offer no decision once a code is decided', () => {
    const html = reviewPage(
      'ann',
      { code: 'BCDF-GHJK', machine_name: 'm', machine_id: 'i', expires_at: 'x', decision: 'approved' },
      'c',
    );
    expect(html).not.toContain('value="approve"');
  });
});

describe(signInPage.name, () => {
  it('should carry the code through sign-in, escaped', () => {
    expect(signInPage('BCDF-GHJK')).toContain('name="code" value="BCDF-GHJK"');
  });
});
