import type { WritePath } from '../history/history';

// A note, not a change of the item; its author is named as a change record names its writer.
export interface ItemCommentWire {
  id: string;
  item_id: string;
  author: string | null;
  // the executor session it was written from (an agent's), and that session's harness
  session_id: number | null;
  harness: string | null;
  path: WritePath;
  body: string;
  created_at: string;
}

export interface ItemCommentListWire {
  item_id: string;
  comments: ItemCommentWire[];
  next_cursor: string | null;
}

export const ITEM_RECENT_COMMENTS = 5;
export const DEFAULT_COMMENT_LIMIT = 50;
export const MAX_COMMENT_LIMIT = 200;
