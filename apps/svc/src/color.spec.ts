import { createColors } from 'picocolors';

import { colorEnabled, tone } from './color';

describe(colorEnabled.name, () => {
  const tty = { isTTY: true };
  const pipe = { isTTY: false };

  it('should colour a terminal and not a pipe in auto mode', () => {
    expect(colorEnabled('auto', tty, {})).toBe(true);
    expect(colorEnabled('auto', pipe, {})).toBe(false);
  });

  it('should honour NO_COLOR (any non-empty value) and TERM=dumb in auto mode only', () => {
    expect(colorEnabled('auto', tty, { NO_COLOR: '1' })).toBe(false);
    expect(colorEnabled('auto', tty, { NO_COLOR: '' })).toBe(true);
    expect(colorEnabled('auto', tty, { TERM: 'dumb' })).toBe(false);
    expect(colorEnabled('always', pipe, { NO_COLOR: '1' })).toBe(true);
    expect(colorEnabled('never', tty, {})).toBe(false);
  });
});

describe(tone.name, () => {
  it('should keep the word and colour it by meaning', () => {
    const p = createColors(true);
    expect(tone('blocked', p)).toBe(p.red('blocked'));
    expect(tone('runnable', p)).toBe(p.green('runnable'));
    expect(tone('medium', p)).toBe('medium');
    expect(tone('blocked', createColors(false))).toBe('blocked');
  });
});
