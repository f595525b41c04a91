import type { StreamNotice } from '@app/contracts';

// Once a connection has delivered a frontier notice for a project, that project's other notices no longer move its
// frontier: the frontier notice that follows them does. A daemon that never sends one (an older one) leaves every
// change notice meaning "changed, ETag unknown".

export interface FrontierMove {
  project: string | null;
  etag: string | null;
  announced: boolean;
}

export class FrontierNoticeTracker {
  private readonly announcing = new Set<string>();

  // A new connection (perhaps to another, older replica): nothing is known of it yet.
  reset(): void {
    this.announcing.clear();
  }

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

// The notice names the default answer's ETag, so a mirror asking for another wip_cap treats it as unknown.
export function noticeEtagFor(query: { wip_cap?: number | string }, etag: string | null): string | null {
  return query.wip_cap === undefined || query.wip_cap === '' ? etag : null;
}
