import { Injectable } from '@nestjs/common';
import type { Client } from 'pg';

import {
  EVENTS_CHANNEL,
  ITEMS_CHANNEL,
  MACHINE_AUTHORIZATIONS_CHANNEL,
  NOTICE_RETENTION_MINUTES,
} from './events.repository';

// The notice feed's SQL. Every method takes the feed's own connection: the feed LISTENs and reads on one dedicated
// pg client (EventsStreamService), never on the pool, so a NOTIFY and the reads that order it share one session.

// One statement: the horizon; the notices between the last horizon and this one (`safe`); and, best effort, the
// non-event notices committed since the last read, ahead of it. In (xid, id) order.
const POLL_SQL = `
  WITH h AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS x)
  SELECT h.x::text AS horizon, n.id::text AS id, n.channel, n.payload, n.xid::text AS xid, n.safe
    FROM h LEFT JOIN LATERAL (
      SELECT id, channel, payload, xid, true AS safe FROM stream_notices
       WHERE $1::xid8 IS NOT NULL AND xid >= $1::xid8 AND xid < h.x
      UNION ALL
      SELECT id, channel, payload, xid, false FROM stream_notices
       WHERE $2::bigint IS NOT NULL AND id > $2::bigint AND xid >= h.x AND channel <> '${EVENTS_CHANNEL}'
    ) n ON true
   ORDER BY n.xid, n.id`;

export interface FeedRow {
  horizon: string;
  id: string | null;
  channel: string | null;
  payload: string | null;
  xid: string | null;
  safe: boolean | null;
}

export interface FeedStart {
  horizon: string;
  highest: string | null;
}

@Injectable()
export class NoticeFeedRepository {
  async listen(client: Client): Promise<void> {
    await client.query(`LISTEN ${EVENTS_CHANNEL}`);
    await client.query(`LISTEN ${ITEMS_CHANNEL}`);
    await client.query(`LISTEN ${MACHINE_AUTHORIZATIONS_CHANNEL}`);
  }

  async findStart(client: Client): Promise<FeedStart> {
    const { rows } = await client.query<FeedStart>(
      `SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon,
              (SELECT max(id) FROM stream_notices)::text AS highest`,
    );
    return rows[0];
  }

  async findSince(client: Client, cursor: string, highest: string | null): Promise<FeedRow[]> {
    return (await client.query<FeedRow>(POLL_SQL, [cursor, highest])).rows;
  }

  async prune(client: Client): Promise<void> {
    await client.query(`DELETE FROM stream_notices WHERE created_at < now() - make_interval(mins => $1)`, [
      NOTICE_RETENTION_MINUTES,
    ]);
  }
}
