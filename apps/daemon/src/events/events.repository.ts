import { Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';

import { AuthenticatedActor, organizationScope } from '../auth/actor';
import { accessibleProjectWhere } from '../auth/project-visibility';
import { InjectDataSource } from '../common/inject-data-source';

export type EventKind = 'workflow' | 'lifecycle' | 'telemetry';

export interface NewEvent {
  name: string;
  kind: EventKind;
  project?: string | null;
  itemRef?: string | null;
  actorId?: number | null;
  sessionId?: number | null;
  payload: Record<string, unknown>;
}

export const EVENTS_CHANNEL = 'svc_events';
// Item and dependency changes, announced by the database's own triggers.
export const ITEMS_CHANNEL = 'svc_items';
export const MACHINE_AUTHORIZATIONS_CHANNEL = 'svc_machine_authorizations';
export const REPLAY_LIMIT = 500;
const RETENTION_LOCK_KEY = 7_301_040;
// stream_notices rows are kept this long (a reader that fell further behind starts again from the present).
export const NOTICE_RETENTION_MINUTES = 10;

export interface EventRow {
  id: string;
  name: string;
  kind: EventKind;
  project: string | null;
  item_ref: string | null;
  actor_id: number | null;
  session_id: number | null;
  payload: Record<string, unknown>;
  created_at: Date;
}

export interface ReplayRow {
  id: string;
  name: string;
  project: string | null;
  item_ref: string | null;
  xid: string;
}

export interface StreamPosition {
  xid: bigint;
  id: bigint;
}

export function positionAfter(a: StreamPosition, b: StreamPosition): boolean {
  return a.xid > b.xid || (a.xid === b.xid && a.id > b.id);
}

export interface MachineNoticeScope {
  orgs: Set<string>;
  unbound: boolean;
}

export type StreamCloseCode =
  | 'token_revoked'
  | 'token_expired'
  | 'machine_credential_revoked'
  | 'actor_disabled'
  | 'membership_removed'
  | 'project_not_visible';

// An open stream's caller, read again at every notice and heartbeat: still allowed, and what it may see now.
export type StreamStanding =
  { ok: true; projects: string[] | null; machines: MachineNoticeScope | null } | { ok: false; code: StreamCloseCode };

interface StandingRow {
  status: 'active' | 'disabled';
  is_admin: boolean;
  live: boolean | null;
  expired: boolean | null;
  member: boolean;
  projects: string[] | null;
  machine_orgs: string[] | null;
}

export interface EventFilter {
  name?: string;
  project?: string;
  itemRef?: string;
  since?: Date;
  afterId?: string;
  limit: number;
  // null = every project (admin); project-less events are always visible
  projects: string[] | null;
}

// Asynchronous commit for the statement's own (implicit) transaction: set_config(..., true) is SET LOCAL, in force
// when the transaction commits. The CTE is referenced by the SELECT, so it runs before the insert's commit.
const ASYNC_COMMIT = `WITH async_commit AS MATERIALIZED (SELECT set_config('synchronous_commit', 'off', true)),`;

@Injectable()
export class EventsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  // Insert and announce in one statement: the notice is a stream_notices row of the same transaction. Stream order is
  // (xid, id) and readers deliver only below pg_snapshot_xmin, so no event commits before one already delivered and
  // Last-Event-ID stays right. No lock is held through the commit: it would serialize every event-writing transaction.
  async insert(
    event: NewEvent,
    manager: EntityManager = this.dataSource.manager,
    asynchronousCommit = false,
  ): Promise<{ id: string; created_at: Date }> {
    const rows: { id: string; created_at: Date }[] = await manager.query(
      `${asynchronousCommit ? ASYNC_COMMIT : 'WITH'} e AS (
         INSERT INTO events (name, kind, project, item_ref, actor_id, session_id, payload)
         VALUES ($1, $2, $3, $4, $5::integer, $6::integer, $7::jsonb)
         RETURNING id, name, project, item_ref, created_at
       )
       SELECT e.id, e.created_at,
              svc_notice($8, json_build_object('type', 'event', 'id', e.id, 'name', e.name,
                                               'project', e.project, 'item_ref', e.item_ref)::text)
         FROM e${asynchronousCommit ? ', async_commit' : ''}`,
      [
        event.name,
        event.kind,
        event.project ?? null,
        event.itemRef ?? null,
        event.actorId ?? null,
        event.sessionId ?? null,
        JSON.stringify(event.payload),
        EVENTS_CHANNEL,
      ],
    );
    return rows[0];
  }

  query(filter: EventFilter): Promise<EventRow[]> {
    return this.dataSource.query(
      `SELECT id::text AS id, name, kind, project, item_ref, actor_id, session_id, payload, created_at
         FROM events
        WHERE ($1::text IS NULL OR name = $1)
          AND ($2::text IS NULL OR project = $2)
          AND ($3::text IS NULL OR upper(item_ref) = upper($3))
          AND ($4::timestamptz IS NULL OR created_at >= $4)
          AND ($5::bigint IS NULL OR id > $5)
          AND ($6::text[] IS NULL OR project IS NULL OR project = ANY ($6::text[]))
        ORDER BY events.id DESC
        LIMIT $7`,
      [
        filter.name ?? null,
        filter.project ?? null,
        filter.itemRef ?? null,
        filter.since ?? null,
        filter.afterId ?? null,
        filter.projects,
        filter.limit,
      ],
    );
  }

  // The newest `limit` events after `afterId` in (xid, id) order below the live horizon (one more tells the replay was
  // cut), and `afterId`'s place (null when no longer recorded: then by id alone).
  async replayAfter(filter: {
    afterId: string;
    name?: string;
    project?: string;
    projects: string[] | null;
    limit: number;
  }): Promise<{ rows: ReplayRow[]; after: StreamPosition | null }> {
    const rows: (ReplayRow & { xid: string; after_xid: string | null })[] = await this.dataSource.query(
      `WITH last AS (SELECT (SELECT xid FROM events WHERE id = $1::bigint) AS xid),
            horizon AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xid)
       SELECT id::text AS id, name, project, item_ref, xid::text AS xid, (SELECT xid::text FROM last) AS after_xid
         FROM (
         SELECT e.id, e.name, e.project, e.item_ref, e.xid FROM events e, last, horizon
          WHERE e.xid < horizon.xid
            AND CASE WHEN last.xid IS NULL THEN e.id > $1::bigint ELSE (e.xid, e.id) > (last.xid, $1::bigint) END
            AND ($2::text IS NULL OR e.name = $2)
            AND ($3::text IS NULL OR e.project = $3)
            AND ($4::text[] IS NULL OR e.project IS NULL OR e.project = ANY ($4::text[]))
          ORDER BY e.xid DESC, e.id DESC
          LIMIT $5
       ) missed ORDER BY xid, id`,
      [filter.afterId, filter.name ?? null, filter.project ?? null, filter.projects, filter.limit],
    );
    const afterXid =
      rows[0]?.after_xid ??
      (
        (await this.dataSource.query(`SELECT xid::text AS xid FROM events WHERE id = $1::bigint`, [
          filter.afterId,
        ])) as { xid: string }[]
      )[0]?.xid ??
      null;
    return {
      rows: rows.map((r) => ({ id: r.id, name: r.name, project: r.project, item_ref: r.item_ref, xid: r.xid })),
      after: afterXid === null ? null : { xid: BigInt(afterXid), id: BigInt(filter.afterId) },
    };
  }

  // One statement by primary keys, under the same visibility rule as every request (accessibleProjectWhere).
  async standing(actor: AuthenticatedActor, hosted: boolean): Promise<StreamStanding> {
    const rows: StandingRow[] = await this.dataSource.query(
      `SELECT a.status, a.is_admin, c.live, c.expired,
              EXISTS (SELECT 1 FROM memberships m
                       WHERE m.actor_id = a.id AND m.status = 'active'
                         AND ($4::integer IS NULL OR m.organization_id = $4)) AS member,
              CASE WHEN a.is_admin AND $4::integer IS NULL THEN NULL
                   ELSE ARRAY(SELECT p.id FROM projects p
                               WHERE ${accessibleProjectWhere('p', 'a.id', 'a.is_admin', '$4')}) END AS projects,
              CASE WHEN a.is_admin AND $4::integer IS NULL THEN NULL
                   ELSE ARRAY(SELECT o.slug FROM memberships m JOIN organizations o ON o.id = m.organization_id
                               WHERE $5::boolean AND m.actor_id = a.id AND m.status = 'active' AND m.role = 'admin'
                                 AND ($4::integer IS NULL OR o.id = $4)
                              UNION ALL
                              SELECT o.slug
                                FROM (SELECT id, slug FROM organizations ORDER BY (slug = 'default') DESC, id LIMIT 1) o
                                JOIN memberships m ON m.organization_id = o.id AND m.actor_id = a.id
                                                  AND m.status = 'active'
                               WHERE NOT $5::boolean AND ($4::integer IS NULL OR o.id = $4)) END AS machine_orgs
         FROM actors a
         LEFT JOIN LATERAL (
               SELECT t.revoked_at IS NULL AS live, (t.expires_at IS NOT NULL AND t.expires_at <= now()) AS expired
                 FROM api_tokens t WHERE $2 = 'api_token' AND t.id = $3 AND t.actor_id = a.id
               UNION ALL
               SELECT m.revoked_at IS NULL, (m.expires_at IS NOT NULL AND m.expires_at <= now())
                 FROM machine_credentials m WHERE $2 = 'machine_credential' AND m.id = $3 AND m.actor_id = a.id
              ) c ON true
        WHERE a.id = $1`,
      [actor.id, actor.via, actor.credentialId, organizationScope(actor), hosted],
    );
    const row = rows[0];
    const revoked: StreamCloseCode = actor.via === 'api_token' ? 'token_revoked' : 'machine_credential_revoked';
    if (!row || row.live === null || !row.live) return { ok: false, code: revoked };
    if (row.expired) return { ok: false, code: 'token_expired' };
    if (row.status !== 'active') return { ok: false, code: 'actor_disabled' };
    if (!row.is_admin && !row.member) return { ok: false, code: 'membership_removed' };
    const machines =
      row.machine_orgs === null
        ? null
        : { orgs: new Set(row.machine_orgs), unbound: hosted && row.machine_orgs.length > 0 };
    return { ok: true, projects: row.projects, machines };
  }

  // Self-host: the server organization for its active members; hosted: the organizations the actor admins.
  async machineNoticeScope(actorId: number, hosted: boolean): Promise<MachineNoticeScope> {
    const rows: { slug: string }[] = hosted
      ? await this.dataSource.query(
          `SELECT o.slug FROM memberships m JOIN organizations o ON o.id = m.organization_id
            WHERE m.actor_id = $1 AND m.status = 'active' AND m.role = 'admin'`,
          [actorId],
        )
      : await this.dataSource.query(
          `SELECT o.slug
             FROM (SELECT id, slug FROM organizations ORDER BY (slug = 'default') DESC, id LIMIT 1) o
             JOIN memberships m ON m.organization_id = o.id AND m.actor_id = $1 AND m.status = 'active'`,
          [actorId],
        );
    return { orgs: new Set(rows.map((r) => r.slug)), unbound: hosted && rows.length > 0 };
  }

  // One replica sweeps at a time; the others skip this round.
  async deleteOlderThan(days: number): Promise<number | null> {
    return this.dataSource.transaction(async (manager) => {
      const [lock]: { locked: boolean }[] = await manager.query('SELECT pg_try_advisory_xact_lock($1) AS locked', [
        RETENTION_LOCK_KEY,
      ]);
      if (!lock.locked) return null;
      const rows: { count: string }[] = await manager.query(
        `WITH gone AS (DELETE FROM events WHERE created_at < now() - make_interval(days => $1) RETURNING 1)
         SELECT count(*) AS count FROM gone`,
        [days],
      );
      return Number(rows[0].count);
    });
  }
}
