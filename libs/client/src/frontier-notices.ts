import type { StreamNotice } from '@app/contracts';

// What a live-stream notice means for a project's frontier. A daemon that knows the frontier notice sends
// `event: frontier` with `{"project", "etag"}` after changes in a project: the ETag of the default answer (no
// wip_cap), or null when it could not compute it. Once a connection has delivered one for a project, that project's
// other notices (item, dependency, claim, events) no longer move its frontier: the frontier notice that follows them
// does. A daemon that never sends it (an older one) leaves every change notice meaning "changed, ETag unknown".

export interface FrontierMove {
  // the project the notice names (null: not said, any frontier may have changed)
  project: string | null;
  // the default answer's new ETag, when the notice names it
  etag: string | null;
  // the daemon's frontier notice (carries the ETag); false for the other change notices
  announced: boolean;
}

export class FrontierNoticeTracker {
  // projects this connection has delivered a frontier notice for
  private readonly announcing = new Set<string>();

  // A new connection (perhaps to another, older replica): nothing is known of it yet.
  reset(): void {
    this.announcing.clear();
  }

  // Whether the notice may have changed a frontier, and what it says: null for notices that change none.
  move(notice: StreamNotice): FrontierMove | null {
    const project = typeof notice.data.project === 'string' ? notice.data.project : null;
    if (notice.type === 'frontier') {
      if (project === null) return null;
      this.announcing.add(project);
      return { project, etag: typeof notice.data.etag === 'string' ? notice.data.etag : null, announced: true };
    }
    // every frontier read records FrontierComputed: following it would read forever
    if (notice.type === 'event' && notice.data.name === 'FrontierComputed') return null;
    if (notice.type === 'machine_authorization' || notice.type === 'closed') return null;
    if (project !== null && this.announcing.has(project)) return null;
    return { project, etag: null, announced: false };
  }
}

// The ETag a mirror may compare with a frontier notice: the notice names the default answer's, so a mirror asking for
// another wip_cap treats it as unknown.
export function noticeEtagFor(query: { wip_cap?: number | string }, etag: string | null): string | null {
  return query.wip_cap === undefined || query.wip_cap === '' ? etag : null;
}
