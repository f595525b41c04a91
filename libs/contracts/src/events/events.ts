export interface EventWire {
  id: string;
  name: string;
  kind: string;
  project: string | null;
  item_id: string | null;
  actor_id: number | null;
  session_id: number | null;
  payload: Record<string, unknown>;
  created_at: string;
}

export interface EventsListResponse {
  events: EventWire[];
}

// GET /v1/events/stream?frontier=<ids>: the most projects one stream asks frontier notices for.
export const MAX_STREAM_FRONTIER_PROJECTS = 8;

// A notice of another type is passed on unchanged.
export const STREAM_NOTICE_TYPES = ['event', 'item', 'items', 'dependency', 'machine_authorization'] as const;
export type StreamNoticeType = (typeof STREAM_NOTICE_TYPES)[number];

// `type` is the SSE `event:` field (default 'message'), `id` its `id:` field (recorded events only).
export interface StreamNotice {
  type: string;
  id: string | null;
  data: Record<string, unknown>;
}
