import { Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';

import type { DispositionWire, OuroborosEntryWire, VerdictWire } from '@app/contracts';

import { AuthenticatedActor, organizationScope } from '../auth/actor';
import { accessibleOrganizationWhere } from '../auth/project-visibility';
import { InjectDataSource } from '../common/inject-data-source';
import { affected, isoUtc } from '../database/backlog-sql';

const VERDICT_SELECT = `SELECT id, item, transition, worker, verdict, caveats, attempt, ${isoUtc('created_at')} AS created_at
  FROM shepherd_verdicts`;
const DISPOSITION_SELECT = `SELECT id, item, transition, attempt, caveat_num, caveat_text, disposition, resolution_details,
       verdict_id, ${isoUtc('created_at')} AS created_at FROM caveat_dispositions`;
const OUROBOROS_SELECT = `SELECT e.id, o.slug AS organization, ${isoUtc('e."timestamp"')} AS "timestamp", e.agent, e.context,
       e.category, e.body, ${isoUtc('e.reviewed_at')} AS reviewed_at, ${isoUtc('e.archived_at')} AS archived_at,
       ${isoUtc('e.created_at')} AS created_at
  FROM ouroboros_entries e JOIN organizations o ON o.id = e.organization_id`;

export interface RecordFilter {
  items: readonly string[] | null;
  prefixes: readonly string[] | null;
}
const RECORD_FILTER = `($1::text[] IS NULL OR item = ANY($1)) AND ($2::text[] IS NULL OR split_part(item, '-', 1) = ANY($2))`;

// Seen as its organization is (the rule projects follow), within the request's confinement.
const OUROBOROS_VISIBLE = (first: number) =>
  accessibleOrganizationWhere('e.organization_id', `$${first}`, `$${first + 1}`, `$${first + 2}`);
const viewer = (actor: AuthenticatedActor) => [actor.id, actor.isAdmin, organizationScope(actor)];

@Injectable()
export class RecordsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insertVerdict(v: Omit<VerdictWire, 'id' | 'created_at'>): Promise<VerdictWire> {
    const rows: { id: number }[] = await this.dataSource.query(
      `INSERT INTO shepherd_verdicts (item, transition, worker, verdict, caveats, attempt) VALUES ($1, $2, $3, $4, $5, $6)
       RETURNING id`,
      [v.item, v.transition, v.worker, v.verdict, v.caveats, v.attempt],
    );
    return (await this.dataSource.query(`${VERDICT_SELECT} WHERE id = $1`, [rows[0].id]))[0];
  }

  verdicts(filter: RecordFilter): Promise<VerdictWire[]> {
    return this.dataSource.query(`${VERDICT_SELECT} WHERE ${RECORD_FILTER} ORDER BY created_at, id`, [
      filter.items,
      filter.prefixes,
    ]);
  }

  async verdictItem(id: number): Promise<string | null> {
    const rows: { item: string }[] = await this.dataSource.query(`SELECT item FROM shepherd_verdicts WHERE id = $1`, [
      id,
    ]);
    return rows[0]?.item ?? null;
  }

  // ON CONFLICT DO NOTHING: a second disposition of the same caveat answers with no row.
  async insertDisposition(d: Omit<DispositionWire, 'id' | 'created_at'>): Promise<DispositionWire | null> {
    const rows: { id: number }[] = await this.dataSource.query(
      `INSERT INTO caveat_dispositions (item, transition, attempt, caveat_num, caveat_text, disposition,
                                        resolution_details, verdict_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (item, transition, attempt, caveat_num) DO NOTHING RETURNING id`,
      [d.item, d.transition, d.attempt, d.caveat_num, d.caveat_text, d.disposition, d.resolution_details, d.verdict_id],
    );
    if (rows.length === 0) return null;
    return (await this.dataSource.query(`${DISPOSITION_SELECT} WHERE id = $1`, [rows[0].id]))[0];
  }

  dispositions(filter: RecordFilter): Promise<DispositionWire[]> {
    return this.dataSource.query(
      `${DISPOSITION_SELECT} WHERE ${RECORD_FILTER} ORDER BY item, transition, attempt, caveat_num`,
      [filter.items, filter.prefixes],
    );
  }

  async insertOuroboros(e: {
    organizationId: number;
    timestamp: string | null;
    agent: string;
    context: string | null;
    category: string;
    body: string;
  }): Promise<OuroborosEntryWire> {
    // created_at is supplied by the application (the spec's rule), from the database clock
    const rows: { id: number }[] = await this.dataSource.query(
      `INSERT INTO ouroboros_entries (organization_id, "timestamp", agent, context, category, body, created_at)
       VALUES ($1, COALESCE($2::timestamptz, now()), $3, $4, $5, $6, now()) RETURNING id`,
      [e.organizationId, e.timestamp, e.agent, e.context, e.category, e.body],
    );
    return (await this.ouroborosEntry(rows[0].id))!;
  }

  async ouroborosEntry(id: number): Promise<OuroborosEntryWire | null> {
    const rows: OuroborosEntryWire[] = await this.dataSource.query(`${OUROBOROS_SELECT} WHERE e.id = $1`, [id]);
    return rows[0] ?? null;
  }

  ouroboros(
    actor: AuthenticatedActor,
    f: { agent?: string; category?: string; reviewed?: number; archived?: number; limit: number },
  ): Promise<OuroborosEntryWire[]> {
    return this.dataSource.query(
      `${OUROBOROS_SELECT}
        WHERE ${OUROBOROS_VISIBLE(1)}
          AND ($4::text IS NULL OR e.agent = $4) AND ($5::text IS NULL OR e.category = $5)
          AND ($6::int IS NULL OR (e.reviewed_at IS NOT NULL) = ($6 = 1))
          AND ($7::int IS NULL OR (e.archived_at IS NOT NULL) = ($7 = 1))
        ORDER BY e."timestamp" DESC, e.id DESC LIMIT $8`,
      [...viewer(actor), f.agent ?? null, f.category ?? null, f.reviewed ?? null, f.archived ?? null, f.limit],
    );
  }

  // One conditional statement: an entry the caller does not see is not marked, exactly like one that does not exist.
  async markOuroboros(actor: AuthenticatedActor, id: number, column: 'reviewed_at' | 'archived_at'): Promise<boolean> {
    const { count } = affected(
      await this.dataSource.query(
        `UPDATE ouroboros_entries e SET ${column} = COALESCE(e.${column}, now())
          WHERE e.id = $4 AND ${OUROBOROS_VISIBLE(1)}`,
        [...viewer(actor), id],
      ),
    );
    return count > 0;
  }
}
