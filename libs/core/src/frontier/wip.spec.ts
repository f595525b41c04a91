import { takesWipSlot } from './wip';

describe('takesWipSlot', () => {
  it.each([
    ['conduct', 'planned', true],
    ['conduct', 'refined-idea', true],
    ['conduct', 'implementing', false],
    ['conduct', 'reviewing-implementation', false],
    ['advance', 'implementing', false],
    ['advance', 'reviewing-implementation', false],
    ['refine', 'idea', false],
    ['polish', 'reviewed-implementation', false],
    ['wait', 'planned', false],
  ])('should answer for adapter %s at %s: %s', (adapter, status, expected) => {
    expect(takesWipSlot({ adapter, status } as Parameters<typeof takesWipSlot>[0])).toBe(expected);
  });
});
