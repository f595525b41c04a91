import { Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';

import { InjectDataSource } from '../common/inject-data-source';

export interface StoredClaimTexts {
  profileText: string | null;
  attestationText: string | null;
}

export interface LockedClaim extends StoredClaimTexts {
  now: string;
}

export interface ItemProse {
  spec: string | null;
  // The prose of the body as it renders: the stored body, the sections, the design spec and the plans. The logs
  // (shepherd_log, shepherd_caveats, test_results, deploy_log) quote commands and are not declarations.
  body: string | null;
  profileText: string | null;
}

export interface ClaimReplacement {
  previous: StoredClaimTexts;
  current: StoredClaimTexts;
}

interface ClaimRow {
  db_mutation_profile: string | null;
  db_compatibility_attestation: string | null;
}

const toTexts = (row: ClaimRow): StoredClaimTexts => ({
  profileText: row.db_mutation_profile,
  attestationText: row.db_compatibility_attestation,
});

@Injectable()
export class DbClaimsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async findClaim(itemId: number, manager: EntityManager = this.dataSource.manager): Promise<StoredClaimTexts | null> {
    const rows: ClaimRow[] = await manager.query(
      'SELECT db_mutation_profile, db_compatibility_attestation FROM items WHERE id = $1',
      [itemId],
    );
    return rows.length === 0 ? null : toTexts(rows[0]);
  }

  async findProse(itemId: number, manager: EntityManager = this.dataSource.manager): Promise<ItemProse | null> {
    const rows: { spec: string | null; body: string | null; db_mutation_profile: string | null }[] =
      await manager.query(
        `SELECT i.spec, i.db_mutation_profile,
                NULLIF(concat_ws(E'\\n\\n', i.body,
                       (SELECT string_agg(s.content, E'\\n\\n' ORDER BY s.ordering, s.section_name)
                          FROM item_sections s WHERE s.item_id = i.id),
                       i.design_spec, i.technical_plan, i.worktree_plan), '') AS body
           FROM items i WHERE i.id = $1`,
        [itemId],
      );
    if (rows.length === 0) return null;
    return { spec: rows[0].spec, body: rows[0].body, profileText: rows[0].db_mutation_profile };
  }

  // A throw from `build` rolls back and writes nothing; null when the item no longer exists.
  replaceClaim(
    itemId: number,
    build: (locked: LockedClaim) => { profileText: string; attestationText: string },
    check: (manager: EntityManager) => Promise<void>,
  ): Promise<ClaimReplacement | null> {
    return this.dataSource.transaction(async (manager) => {
      const locked: (ClaimRow & { now: Date })[] = await manager.query(
        `SELECT db_mutation_profile, db_compatibility_attestation, now() AS now
           FROM items WHERE id = $1 FOR UPDATE`,
        [itemId],
      );
      if (locked.length === 0) return null;
      await check(manager);
      const previous = toTexts(locked[0]);
      const next = build({ ...previous, now: new Date(locked[0].now).toISOString() });
      // Wrapped in a CTE: TypeORM answers a bare UPDATE with [rows, count] rather than the rows.
      const written: ClaimRow[] = await manager.query(
        `WITH written AS (
           UPDATE items SET db_mutation_profile = $2, db_compatibility_attestation = $3, updated_at = now()
            WHERE id = $1
        RETURNING db_mutation_profile, db_compatibility_attestation
         )
         SELECT db_mutation_profile, db_compatibility_attestation FROM written`,
        [itemId, next.profileText, next.attestationText],
      );
      return { previous, current: toTexts(written[0]) };
    });
  }
}
