import { frontier, item, NOW, project } from '../testing/fixtures';
import { reduce } from './reduce';
import {
  activeScope,
  bucketIndexAt,
  formatAge,
  formatCountdown,
  indexOfKey,
  rowCount,
  wipSuppressed,
} from './selectors';
import { initialState } from './state';

describe('selectors', () => {
  describe('formatAge', () => {
    it.each([
      [30_000, '30s'],
      [5 * 60_000, '5m'],
      [3 * 3_600_000, '3h'],
      [47 * 3_600_000, '47h'],
      [2 * 86_400_000, '2d'],
      [20 * 86_400_000, '2w'],
      [90 * 86_400_000, '3mo'],
      [800 * 86_400_000, '2y'],
    ])('should render %i ms as %s', (ms, text) => {
      expect(formatAge(new Date(NOW - ms).toISOString(), NOW)).toBe(text);
    });

    it('should render nothing for a missing or unreadable date', () => {
      expect(formatAge(null, NOW)).toBe('');
      expect(formatAge('yesterday', NOW)).toBe('');
    });
  });

  describe('formatCountdown', () => {
    it('should count down minutes and seconds, then say expired', () => {
      expect(formatCountdown(new Date(NOW + 598_000).toISOString(), NOW)).toBe('9:58');
      expect(formatCountdown(new Date(NOW + 3_723_000).toISOString(), NOW)).toBe('1:02:03');
      expect(formatCountdown(new Date(NOW - 1).toISOString(), NOW)).toBe('expired');
    });
  });

  describe('filtered rows', () => {
    const state = () => {
      const rows = [item(1, { title: 'alpha' }), item(2, { title: 'beta' }), item(3, { title: 'alphabet' })];
      let s = reduce(initialState(), { type: 'projects_loaded', projects: [project()] });
      s = reduce(s, { type: 'frontier_loaded', project: 'atlas', frontier: frontier(rows) });
      return s;
    };

    it('should keep the bucket rank of a row that passes the filter', () => {
      const s = { ...state(), filter: 'alpha' };
      expect(rowCount(s, 'runnable')).toBe(2);
      expect(bucketIndexAt(s, 'runnable', 1)).toBe(2);
      expect(indexOfKey(s, 'runnable', 'ATL-3')).toBe(1);
      expect(indexOfKey(s, 'runnable', 'ATL-2')).toBe(-1);
    });

    it('should not filter the machines and events tabs', () => {
      const s = { ...state(), filter: 'zzz' };
      expect(rowCount(s, 'runnable')).toBe(0);
      expect(rowCount(s, 'events')).toBe(0);
    });
  });

  describe('wipSuppressed', () => {
    it('should count runnable conduct rows outside conduct_eligible', () => {
      const rows = [item(1), item(2), item(3, { adapter: 'refine' })];
      let s = reduce(initialState(), { type: 'projects_loaded', projects: [project()] });
      s = reduce(s, {
        type: 'frontier_loaded',
        project: 'atlas',
        frontier: frontier(rows, [], [], { conduct_eligible: [rows[0]] }),
      });
      expect(wipSuppressed(s)).toBe(1);
    });
  });

  describe('activeScope', () => {
    it('should be the tab scope without a dialog', () => {
      let s = reduce(initialState(), { type: 'projects_loaded', projects: [project()] });
      expect(activeScope(s)).toBe('frontier');
      s = reduce(s, { type: 'key', action: 'tab_machines' });
      expect(activeScope(s)).toBe('machines');
    });
  });
});
