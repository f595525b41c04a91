import { FrontierNoticeTracker, noticeEtagFor } from './frontier-notices';

const notice = (type: string, data: Record<string, unknown>) => ({ type, id: null, data });

describe(FrontierNoticeTracker.name, () => {
  it('should take every change notice as a change of unknown ETag from a daemon that sends no frontier notice', () => {
    const tracker = new FrontierNoticeTracker();
    expect(tracker.move(notice('item', { project: 'atl' }))).toEqual({ project: 'atl', etag: null, announced: false });
    expect(tracker.move(notice('event', { name: 'ItemCreated', project: 'atl' }))).toMatchObject({ etag: null });
    expect(tracker.move(notice('items', {}))).toEqual({ project: null, etag: null, announced: false });
    expect(tracker.move(notice('event', { name: 'FrontierComputed', project: 'atl' }))).toBeNull();
    expect(tracker.move(notice('machine_authorization', { state: 'started' }))).toBeNull();
  });

  it('should follow only the frontier notices of a project once the connection delivered one, until it reconnects', () => {
    const tracker = new FrontierNoticeTracker();
    expect(tracker.move(notice('frontier', { project: 'atl', etag: '"v2"' }))).toEqual({
      project: 'atl',
      etag: '"v2"',
      announced: true,
    });
    expect(tracker.move(notice('item', { project: 'atl' }))).toBeNull();
    expect(tracker.move(notice('dependency', { project: 'atl' }))).toBeNull();
    // another project, not announced yet
    expect(tracker.move(notice('item', { project: 'bee' }))).toMatchObject({ project: 'bee', etag: null });
    // the daemon could not compute the ETag
    expect(tracker.move(notice('frontier', { project: 'atl', etag: null }))).toMatchObject({ etag: null });
    tracker.reset();
    expect(tracker.move(notice('item', { project: 'atl' }))).toMatchObject({ project: 'atl', etag: null });
  });

  it("should treat the default answer's ETag as unknown for a mirror of another wip_cap", () => {
    expect(noticeEtagFor({}, '"v2"')).toBe('"v2"');
    expect(noticeEtagFor({ wip_cap: 4 }, '"v2"')).toBeNull();
    expect(noticeEtagFor({ wip_cap: '4' }, '"v2"')).toBeNull();
  });
});
