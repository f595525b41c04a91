// ISO 8601 UTC with milliseconds, as Date.toISOString writes it, so an export re-imports to the identical text.
export function isoUtc(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

// An item's newest comments (newest first, at most `limit`, as JSON: comments.dto's RecentCommentJson) and its count
// of comments, as two columns of a read of the item (`item` names its id there): a write answers with the item and
// its comments in one round trip.
export function recentCommentsColumns(item: string, limit: number): string {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new Error(`a comment limit is a whole number, not ${limit}`);
  return `
         (SELECT COALESCE(json_agg(json_build_object(
                   'id', c.id::text, 'item_id', c.item_id, 'actor_name', c.actor_name, 'session_id', c.session_id,
                   'harness', c.harness, 'path', c.path, 'body', c.body, 'created_at', ${isoUtc('c.created_at')})
                   ORDER BY c.id DESC), '[]')
            FROM (SELECT * FROM item_comments WHERE item_id = ${item} ORDER BY id DESC LIMIT ${limit}) c)
           AS recent_comments,
         (SELECT count(*)::integer FROM item_comments WHERE item_id = ${item}) AS comment_count`;
}

// claimHolderColumn's JSON (rulebook.repository's holderOf reads it).
export interface ClaimHolderJson {
  session_id: number;
  actor_id: number | null;
  actor: string | null;
  harness: string;
  expires_at: string;
}

// The live claim on an item as one JSON column, its row locked. Read after the item's own lock in the same statement
// (`claimHolderColumn('i.id')` over a MATERIALIZED locking CTE), a claimed write takes the item and its claim in one
// round trip, the item first and then its claim, in the order the two reads took them.
export function claimHolderColumn(item: string): string {
  return `(SELECT json_build_object('session_id', c.session_id, 'actor_id', s.actor_id, 'actor', a.name,
                                  'harness', s.harness, 'expires_at', c.expires_at)
             FROM item_claims c
             JOIN executor_sessions s ON s.id = c.session_id
             LEFT JOIN actors a ON a.id = s.actor_id
            WHERE c.item_id = ${item} AND c.expires_at > now()
            FOR UPDATE OF c)`;
}

// TypeORM answers UPDATE and DELETE with [rows, rowCount]; other statements with the rows.
export function affected(result: unknown): { rows: unknown[]; count: number } {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') {
    return { rows: result[0] as unknown[], count: result[1] };
  }
  const rows = Array.isArray(result) ? result : [];
  return { rows, count: rows.length };
}
