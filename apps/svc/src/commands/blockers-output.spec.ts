import { printBlockerRefusal } from './blockers-output';

describe('printBlockerRefusal', () => {
  const blocker = {
    blocker: 'ATL-6',
    gate_point: 'closure',
    satisfaction: 'fact:deployed:production',
    reason: 'ATL-6 is not deployed to production',
    need: 'a succeeded deployment of ATL-6 to production',
    blocker_status: 'release',
    blocker_title: 'Ship',
    blocking_terminal: false,
    blocking_abandoned: false,
  };

  it('should print one row per blocker with its title, satisfaction, state and what would satisfy it', () => {
    let out = '';
    const printed = printBlockerRefusal(
      { code: 'blocked_by_dependencies', blockers: [blocker, { ...blocker, blocker: null }] },
      (s) => {
        out += s;
      },
    );
    expect(printed).toBe(true);
    expect(out).toMatch(/blocker\s.*title\s.*satisfaction\s.*state\s.*would satisfy/);
    expect(out).toMatch(/ATL-6\s.*Ship\s.*fact:deployed:production\s.*release\s.*a succeeded deployment/);
    expect(out).toContain('(missing)');
  });

  it('should print nothing for any other error', () => {
    const write = jest.fn();
    expect(printBlockerRefusal({ code: 'item_not_found' }, write)).toBe(false);
    expect(write).not.toHaveBeenCalled();
  });
});
