import { Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';

import { WIP_STATUSES } from '@app/core';

import { InjectDataSource } from '../common/inject-data-source';

export interface LiveClaimRow {
  item_id: number;
  session_id: number;
  project: string;
  wip_slot: boolean;
  // the claimed item already counts in wip_active (it reached implementing or review)
  in_wip: boolean;
}

export interface NewClaim {
  itemId: number;
  sessionId: number;
  project: string;
  entrypoint: string;
  adapter: string;
  wipSlot: boolean;
  ttlSeconds: number;
  // start slots left after wip_active: live slot-holding claims must stay below it
  wipRemaining: number;
}

export interface ClaimResult {
  item_id: number;
  claimed_at: Date;
  expires_at: Date;
}

export interface ClaimHolderRow {
  item_id: string;
  project: string;
  session_id: number;
  harness: string;
  model: string;
  lane: string;
  actor: string | null;
  adapter: string | null;
  wip_slot: boolean;
  claimed_at: Date;
  expires_at: Date;
}

export interface ApprovalHalt {
  run_id: string;
  environment: string;
  stage: string;
  halted_at: Date;
}

const WIP = [...WIP_STATUSES];

@Injectable()
export class ChargeRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  liveClaims(projects: readonly string[]): Promise<LiveClaimRow[]> {
    if (projects.length === 0) return Promise.resolve([]);
    return this.dataSource.query(
      `SELECT c.item_id, c.session_id, c.project, c.wip_slot, (i.status = ANY ($2::text[])) AS in_wip
         FROM item_claims c JOIN items i ON i.id = c.item_id
        WHERE c.project = ANY ($1::text[]) AND c.expires_at > now()`,
      [projects, WIP],
    );
  }

  // item_claims is keyed by item: one claim per item.
  claimHolders(project: string): Promise<ClaimHolderRow[]> {
    return this.dataSource.query(
      `SELECT p.public_item_prefix || '-' || i.project_sequence AS item_id, c.project, c.session_id, s.harness,
              s.model, s.lane, a.name AS actor, c.adapter, c.wip_slot, c.claimed_at, c.expires_at
         FROM item_claims c
         JOIN items i ON i.id = c.item_id
         JOIN projects p ON p.id = i.project
         JOIN executor_sessions s ON s.id = c.session_id
         LEFT JOIN actors a ON a.id = s.actor_id
        WHERE c.project = $1 AND c.expires_at > now()
        ORDER BY c.claimed_at, c.item_id`,
      [project],
    );
  }

  // The item's newest flow run when it is halted awaiting an approval not yet given (the usher must not re-dispatch).
  async awaitingApproval(itemId: number): Promise<ApprovalHalt | null> {
    const rows: {
      run_id: string;
      environment: string;
      stage: string;
      halted_at: Date;
      halt_kind: string | null;
      status: string;
      approved: boolean;
    }[] = await this.dataSource.query(
      `SELECT r.id AS run_id, r.environment, r.halt_stage AS stage, r.halted_at, r.halt_kind, r.status,
                EXISTS (SELECT 1 FROM deployment_approvals a WHERE a.run_id = r.id AND a.stage_index = r.stage_index)
                  AS approved
           FROM deployment_runs r
          WHERE r.flow_id IS NOT NULL AND r.carried_work -> 'items' @> jsonb_build_array($1::int)
          ORDER BY r.started_at DESC, r.id DESC LIMIT 1`,
      [itemId],
    );
    const run = rows[0];
    if (!run || run.status !== 'halted' || run.halt_kind !== 'awaiting-approval' || run.approved) return null;
    return { run_id: run.run_id, environment: run.environment, stage: run.stage, halted_at: run.halted_at };
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  // Under the project's charge lock, one conditional upsert: no other live holder and, for WIP work, slot-holding
  // claims below the remaining capacity. An expired claim is taken over; the holder may re-claim.
  async claim(manager: EntityManager, claim: NewClaim): Promise<ClaimResult | null> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext('svc:charge:' || $1))`, [claim.project]);
    const rows: ClaimResult[] = await manager.query(
      `WITH slots AS (
         SELECT count(*) AS used
           FROM item_claims c JOIN items i ON i.id = c.item_id
          WHERE c.project = $3 AND c.wip_slot AND c.expires_at > now() AND c.item_id <> $1
            AND i.status <> ALL ($9::text[])
       )
       INSERT INTO item_claims AS ic (item_id, session_id, project, entrypoint, adapter, wip_slot,
                                      claimed_at, renewed_at, expires_at)
       SELECT $1, $2, $3, $4, $5, $6, now(), now(), now() + make_interval(secs => $7)
         FROM slots
        WHERE NOT $6 OR slots.used < $8
       ON CONFLICT (item_id) DO UPDATE
          SET session_id = EXCLUDED.session_id, project = EXCLUDED.project, entrypoint = EXCLUDED.entrypoint,
              adapter = EXCLUDED.adapter, wip_slot = EXCLUDED.wip_slot, claimed_at = EXCLUDED.claimed_at,
              renewed_at = EXCLUDED.renewed_at, expires_at = EXCLUDED.expires_at
        WHERE ic.expires_at <= now() OR ic.session_id = EXCLUDED.session_id
       RETURNING ic.item_id, ic.claimed_at, ic.expires_at`,
      [
        claim.itemId,
        claim.sessionId,
        claim.project,
        claim.entrypoint,
        claim.adapter,
        claim.wipSlot,
        claim.ttlSeconds,
        claim.wipRemaining,
        WIP,
      ],
    );
    return rows[0] ?? null;
  }

  async claimHolder(manager: EntityManager, itemId: number): Promise<number | null> {
    const rows: { session_id: number }[] = await manager.query(
      'SELECT session_id FROM item_claims WHERE item_id = $1 AND expires_at > now()',
      [itemId],
    );
    return rows[0]?.session_id ?? null;
  }

  touchSession(manager: EntityManager, sessionId: number): Promise<unknown> {
    return manager.query('UPDATE executor_sessions SET last_seen_at = now() WHERE id = $1', [sessionId]);
  }
}
