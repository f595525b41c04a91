import { Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';

import { InjectDataSource } from '../common/inject-data-source';

export interface ResolvedRef {
  id: number;
  ref: string;
  project: string;
}

// Public refs are `<public_item_prefix>-<project_sequence>`; every lookup is one query for the whole set.
@Injectable()
export class RefsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async resolveMany(refs: readonly string[], manager: EntityManager = this.dataSource.manager): Promise<ResolvedRef[]> {
    if (refs.length === 0) return [];
    return manager.query(
      `SELECT i.id, p.public_item_prefix || '-' || i.project_sequence AS ref, i.project
         FROM unnest($1::text[]) AS r(ref)
         JOIN projects p ON p.public_item_prefix = upper(split_part(r.ref, '-', 1))
         JOIN items i ON i.project = p.id
                     AND i.project_sequence = CASE WHEN split_part(r.ref, '-', 2) ~ '^[0-9]{1,9}$'
                                                   THEN split_part(r.ref, '-', 2)::integer END`,
      [refs],
    );
  }

  // One ref, split by the caller: scalar parameters give the prepared statement a generic plan as good as a custom one
  // (an array parameter kept PostgreSQL planning it at every write, ADR 0092).
  async resolveOne(
    prefix: string,
    sequence: number,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<ResolvedRef | null> {
    const rows: ResolvedRef[] = await manager.query(
      `SELECT i.id, p.public_item_prefix || '-' || i.project_sequence AS ref, i.project
         FROM projects p
         JOIN items i ON i.project = p.id AND i.project_sequence = $2
        WHERE p.public_item_prefix = $1`,
      [prefix, sequence],
    );
    return rows[0] ?? null;
  }

  async refsOf(ids: readonly number[], manager: EntityManager = this.dataSource.manager): Promise<Map<number, string>> {
    if (ids.length === 0) return new Map();
    const rows: { id: number; ref: string }[] = await manager.query(
      `SELECT i.id, p.public_item_prefix || '-' || i.project_sequence AS ref
         FROM items i JOIN projects p ON p.id = i.project
        WHERE i.id = ANY($1::int[])`,
      [ids],
    );
    return new Map(rows.map((r) => [r.id, r.ref]));
  }
}
