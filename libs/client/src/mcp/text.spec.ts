import type { ScheduleResponse } from '@app/contracts';

import { compactJson, nextWorkText } from './text';

// Issue 37: an agent idle in an empty lane is told where the work is, in words (not only other_lanes in the JSON).
describe('nextWorkText', () => {
  it('should say that the lane is empty and where the runnable items are', () => {
    const schedule = {
      session_id: 7,
      lane: 'deep',
      scope: ['atl'],
      steps: [],
      projects: [
        {
          project: 'atl',
          wip_cap: 5,
          wip_active: 0,
          wip_claimed: 0,
          wip_remaining: 5,
          runnable: 21,
          blocked: 0,
          frozen: 0,
          claimed_elsewhere: 2,
          wip_suppressed: 0,
          other_lanes: 21,
        },
      ],
      runnable_elsewhere: null,
    } as ScheduleResponse;
    const text = nextWorkText(schedule, []);
    expect(text).toContain('nothing runnable for this session');
    expect(text).toContain(
      'your lane deep has none in atl; 21 runnable in other lanes (sessions routed there take them); 2 claimed by other sessions',
    );
  });
});

describe('compactJson', () => {
  it('should leave out empty values and zeros, keep array positions', () => {
    expect(
      compactJson({
        a: null,
        b: false,
        c: '',
        d: [],
        e: {},
        f: '{}',
        g: 0,
        h: true,
        i: [{ x: null, y: 1 }, null, { z: [] }],
        j: { k: null },
        l: 'text',
      }),
    ).toBe('{"h":true,"i":[{"y":1},null,{}],"l":"text"}');
  });

  it('should leave out a key that repeats its parent’s, in nested objects and array elements', () => {
    expect(
      compactJson({
        lane: 'primary',
        item_id: 'A-1',
        steps: [{ lane: 'primary', item_id: 'A-2' }, { lane: 'deep' }],
        decision: { item_id: 'A-1', reason: 'dispatched' },
      }),
    ).toBe(
      '{"lane":"primary","item_id":"A-1","steps":[{"item_id":"A-2"},{"lane":"deep"}],"decision":{"reason":"dispatched"}}',
    );
  });
});
