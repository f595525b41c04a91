import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { affected, isoUtc } from '../projects/backlog-sql';
import { DispositionWire, OuroborosWire, VerdictWire } from './dto/records.dto';

const VERDICT_SELECT = `SELECT id, item, transition, worker, verdict, caveats, attempt, ${isoUtc('created_at')} AS created_at
  FROM shepherd_verdicts`;
const DISPOSITION_SELECT = `SELECT id, item, transition, attempt, caveat_num, caveat_text, disposition, resolution_details,
       verdict_id, ${isoUtc('created_at')} AS created_at FROM caveat_dispositions`;
const OUROBOROS_SELECT = `SELECT id, ${isoUtc('"timestamp"')} AS "timestamp", agent, context, category, body,
       ${isoUtc('reviewed_at')} AS reviewed_at, ${isoUtc('archived_at')} AS archived_at, ${isoUtc('created_at')} AS created_at
  FROM ouroboros_entries`;

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

  verdicts(items: readonly string[] | null): Promise<VerdictWire[]> {
    return this.dataSource.query(
      `${VERDICT_SELECT} WHERE ($1::text[] IS NULL OR item = ANY($1)) ORDER BY created_at, id`,
      [items],
    );
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

  dispositions(items: readonly string[] | null): Promise<DispositionWire[]> {
    return this.dataSource.query(
      `${DISPOSITION_SELECT} WHERE ($1::text[] IS NULL OR item = ANY($1))
        ORDER BY item, transition, attempt, caveat_num`,
      [items],
    );
  }

  async insertOuroboros(e: {
    timestamp: string | null;
    agent: string;
    context: string | null;
    category: string;
    body: string;
  }) {
    // created_at is supplied by the application (the spec's rule), from the database clock
    const rows: { id: number }[] = await this.dataSource.query(
      `INSERT INTO ouroboros_entries ("timestamp", agent, context, category, body, created_at)
       VALUES (COALESCE($1::timestamptz, now()), $2, $3, $4, $5, now()) RETURNING id`,
      [e.timestamp, e.agent, e.context, e.category, e.body],
    );
    return this.ouroborosEntry(rows[0].id);
  }

  async ouroborosEntry(id: number): Promise<OuroborosWire | null> {
    const rows: OuroborosWire[] = await this.dataSource.query(`${OUROBOROS_SELECT} WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  ouroboros(f: { agent?: string; category?: string; reviewed?: number; archived?: number; limit: number }) {
    return this.dataSource.query(
      `${OUROBOROS_SELECT}
        WHERE ($1::text IS NULL OR agent = $1) AND ($2::text IS NULL OR category = $2)
          AND ($3::int IS NULL OR (reviewed_at IS NOT NULL) = ($3 = 1))
          AND ($4::int IS NULL OR (archived_at IS NOT NULL) = ($4 = 1))
        ORDER BY "timestamp" DESC, id DESC LIMIT $5`,
      [f.agent ?? null, f.category ?? null, f.reviewed ?? null, f.archived ?? null, f.limit],
    ) as Promise<OuroborosWire[]>;
  }

  async markOuroboros(id: number, column: 'reviewed_at' | 'archived_at'): Promise<boolean> {
    const { count } = affected(
      await this.dataSource.query(`UPDATE ouroboros_entries SET ${column} = COALESCE(${column}, now()) WHERE id = $1`, [
        id,
      ]),
    );
    return count > 0;
  }
}
