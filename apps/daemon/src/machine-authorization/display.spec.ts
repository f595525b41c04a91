import { escapeHtml, sanitizeForDisplay } from './display';

describe(sanitizeForDisplay.name, () => {
  it('should strip control and bidi characters', () => {
    expect(sanitizeForDisplay('lap\u202etop\u0007\u0085\u2066x\u200f\u061c', 64)).toBe('laptopx');
  });

  it('should cap the length by code points', () => {
    const shown = sanitizeForDisplay('😀'.repeat(100), 64);
    expect(Array.from(shown)).toHaveLength(64);
    expect(shown.endsWith('…')).toBe(true);
  });

  it('should never return an empty string', () => {
    expect(sanitizeForDisplay('\u202e\u202e', 64)).toBe('?');
  });
});

describe(escapeHtml.name, () => {
  it('should escape markup', () => {
    expect(escapeHtml(`<script>"x"&'y'</script>`)).not.toMatch(/[<>"']/);
  });
});
