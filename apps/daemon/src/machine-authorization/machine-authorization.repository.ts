import { Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';

import { InjectDataSource } from '../common/inject-data-source';
import { BudgetPool } from './budget-pool';
import { BudgetGroup, PollBatchRows, PollBatcher } from './poll-batch';
import { hotPathPool } from './hot-path-pool';
import {
  CAPACITY_LOCK_KEY,
  CLIENT_CAPACITY,
  CODE_LIFETIME_SECONDS,
  NETWORK_CAPACITY,
  SERVER_CAPACITY,
  WIDE_NETWORK_CAPACITY,
} from './limits';

export type StoredStatus = 'pending' | 'approved' | 'denied' | 'consumed';

export interface OrganizationRow {
  id: number;
  slug: string;
}

export interface NewAuthorization {
  deviceCodeHash: Buffer;
  userCodeHash: Buffer;
  clientKey: string;
  networkKey: string;
  wideNetworkKey: string;
  machineId: string;
  machineName: string;
  origin: string;
  organizationId: number | null;
}

export interface CapacityResult {
  inserted: { id: string; expiresAt: Date } | null;
  clientOpen: number;
  networkOpen: number;
  wideNetworkOpen: number;
  serverOpen: number;
}

export interface AuthorizationRow {
  id: string;
  status: StoredStatus;
  live: boolean;
  machineId: string;
  machineName: string;
  organizationId: number | null;
  organizationSlug: string | null;
  decidedBy: number | null;
  expiresAt: Date;
}

export interface ApproverStanding {
  actorStatus: 'active' | 'disabled' | null;
  membershipStatus: 'active' | 'disabled' | null;
  role: 'admin' | 'member' | null;
  slug: string;
}

// A pending request as listed to the people who may decide it (no secret: neither code nor digest).
export interface PendingRequestRow {
  request_id: string;
  machine_name: string;
  machine_id: string;
  client_key: string;
  org: string | null;
  created_at: Date;
  expires_at: Date;
  claimed_by_caller: boolean;
}

export interface ParentCredential {
  via: 'api_token' | 'machine_credential';
  id: number;
}

export interface ConsumedAuthorization {
  decidedBy: number | null;
  organizationId: number;
  machineName: string;
  parent: ParentCredential | null;
}

export interface PendingRequestScope {
  actorId: number;
  organizationIds: readonly number[];
  // hosted codes waiting for any organization (organization chosen at approval)
  includeUnbound: boolean;
}

interface RawAuthorizationRow {
  id: string;
  status: StoredStatus;
  live: boolean;
  machine_id: string;
  machine_name: string;
  organization_id: number | null;
  slug: string | null;
  decided_by: number | null;
  expires_at: Date;
}

interface OpenCounts {
  client_open: number;
  network_open: number;
  wide_network_open: number;
  server_open: number;
}

// Open (pending or approved, live) codes per client, network, wide network ($13) and server.
const OPEN_COUNTS = `count(*) FILTER (WHERE client_key = $1)::int AS client_open,
       count(*) FILTER (WHERE network_key = $2)::int AS network_open,
       count(*) FILTER (WHERE wide_network_key = $13)::int AS wide_network_open, count(*)::int AS server_open`;

const withinCapacity = (open: OpenCounts) =>
  open.client_open < CLIENT_CAPACITY &&
  open.network_open < NETWORK_CAPACITY &&
  open.wide_network_open < WIDE_NETWORK_CAPACITY &&
  open.server_open < SERVER_CAPACITY;

const capacityResult = (open: OpenCounts, inserted: CapacityResult['inserted']): CapacityResult => ({
  inserted,
  clientOpen: open.client_open,
  networkOpen: open.network_open,
  wideNetworkOpen: open.wide_network_open,
  serverOpen: open.server_open,
});

const AUTHORIZATION_COLUMNS = `ma.id, ma.status, ma.expires_at > now() AS live, ma.machine_id, ma.machine_name,
         ma.organization_id, o.slug, ma.decided_by, ma.expires_at`;
const AUTHORIZATION_FROM = 'FROM machine_authorizations ma LEFT JOIN organizations o ON o.id = ma.organization_id';
const SELECT_AUTHORIZATION = `SELECT ${AUTHORIZATION_COLUMNS} ${AUTHORIZATION_FROM}`;

function toRow(raw: RawAuthorizationRow | undefined): AuthorizationRow | null {
  if (!raw) return null;
  return {
    id: raw.id,
    status: raw.status,
    live: raw.live,
    machineId: raw.machine_id,
    machineName: raw.machine_name,
    organizationId: raw.organization_id,
    organizationSlug: raw.slug,
    decidedBy: raw.decided_by,
    expiresAt: raw.expires_at,
  };
}

const POLL_BATCH_SQL = `
  WITH req AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::int[]) WITH ORDINALITY AS r(scope, subject, n, g)
  ), hit AS (
    INSERT INTO rate_counters (scope, subject, window_start, hits, expires_at)
    SELECT scope, subject, date_trunc('minute', now()), n, date_trunc('minute', now()) + interval '2 minutes'
      FROM req
    ON CONFLICT (scope, subject, window_start) DO UPDATE SET hits = rate_counters.hits + EXCLUDED.hits
    RETURNING scope, subject, hits,
              greatest(1, ceil(extract(epoch FROM (window_start + interval '1 minute' - now()))))::int AS retry_after
  ), codes AS (
    SELECT encode(ma.device_code_hash, 'hex') AS hash, ma.id::text AS id, ma.status, ma.expires_at > now() AS live,
           ma.machine_id, ma.machine_name, ma.organization_id, o.slug, ma.decided_by, ma.expires_at
      FROM machine_authorizations ma LEFT JOIN organizations o ON o.id = ma.organization_id
     WHERE ma.device_code_hash = ANY ($4::bytea[])
  )
  SELECT (SELECT json_agg(json_build_array(req.g, hit.hits, hit.retry_after))
            FROM hit JOIN req USING (scope, subject))::text AS hits,
         (SELECT json_agg(codes) FROM codes)::text AS codes`;

@Injectable()
export class MachineAuthorizationRepository {
  private readonly polls: PollBatcher;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    budgets: BudgetPool,
  ) {
    this.polls = new PollBatcher((groups, hashes) => this.spendAndReadPollBatch(budgets, groups, hashes));
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  // Self-host binds every code to its sole organization (the first-boot 'default' one when several exist).
  async soleOrganization(): Promise<OrganizationRow | null> {
    const rows: OrganizationRow[] = await this.dataSource.query(
      `SELECT id, slug FROM organizations ORDER BY (slug = 'default') DESC, id LIMIT 1`,
    );
    return rows[0] ?? null;
  }

  async organizationBySlug(slug: string): Promise<OrganizationRow | null> {
    const rows: OrganizationRow[] = await this.dataSource.query('SELECT id, slug FROM organizations WHERE slug = $1', [
      slug,
    ]);
    return rows[0] ?? null;
  }

  async organizationById(id: number): Promise<OrganizationRow | null> {
    const rows: OrganizationRow[] = await this.dataSource.query('SELECT id, slug FROM organizations WHERE id = $1', [
      id,
    ]);
    return rows[0] ?? null;
  }

  async membership(
    actorId: number,
    organizationId: number,
  ): Promise<{ role: 'admin' | 'member'; status: 'active' | 'disabled' } | null> {
    const rows: { role: 'admin' | 'member'; status: 'active' | 'disabled' }[] = await this.dataSource.query(
      'SELECT role, status FROM memberships WHERE actor_id = $1 AND organization_id = $2',
      [actorId, organizationId],
    );
    return rows[0] ?? null;
  }

  async isAdminOfAnyOrganization(actorId: number): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM memberships WHERE actor_id = $1 AND role = 'admin' AND status = 'active' LIMIT 1`,
      [actorId],
    );
    return rows.length > 0;
  }

  // One transaction-scoped advisory lock, so concurrent starts on any replica cannot pass the limits together.
  async insertWithinCapacity(row: NewAuthorization): Promise<CapacityResult> {
    // Lock-free pre-check: a full pool refuses without queueing; a stale read can only over-count.
    const { rows: open } = await hotPathPool(this.dataSource).query<OpenCounts>(
      `SELECT ${OPEN_COUNTS.replace('$13', '$3')}
         FROM machine_authorizations WHERE status IN ('pending', 'approved') AND expires_at > now()`,
      [row.clientKey, row.networkKey, row.wideNetworkKey],
    );
    if (!withinCapacity(open[0])) return capacityResult(open[0], null);
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock($1)', [CAPACITY_LOCK_KEY]);
      const rows: (OpenCounts & { id: string | null; expires_at: Date | null })[] = await manager.query(
        `WITH open AS (
           SELECT ${OPEN_COUNTS}
             FROM machine_authorizations
            WHERE status IN ('pending', 'approved') AND expires_at > now()
         ), ins AS (
           INSERT INTO machine_authorizations
                  (device_code_hash, user_code_hash, client_key, network_key, wide_network_key, machine_id,
                   machine_name, origin, organization_id, expires_at)
           SELECT $3, $4, $1, $2, $13, $5, $6, $7, $8, now() + make_interval(secs => $9)
             FROM open
            WHERE open.client_open < $10 AND open.network_open < $11 AND open.server_open < $12
              AND open.wide_network_open < $14
           RETURNING id, expires_at
         )
         SELECT open.client_open, open.network_open, open.wide_network_open, open.server_open, ins.id, ins.expires_at
           FROM open LEFT JOIN ins ON true`,
        [
          row.clientKey,
          row.networkKey,
          row.deviceCodeHash,
          row.userCodeHash,
          row.machineId,
          row.machineName,
          row.origin,
          row.organizationId,
          CODE_LIFETIME_SECONDS,
          CLIENT_CAPACITY,
          NETWORK_CAPACITY,
          SERVER_CAPACITY,
          row.wideNetworkKey,
          WIDE_NETWORK_CAPACITY,
        ],
      );
      const result = rows[0];
      return capacityResult(result, result.id ? { id: result.id, expiresAt: result.expires_at! } : null);
    });
  }

  async openCodes(): Promise<number> {
    const { rows } = await hotPathPool(this.dataSource).query<{ n: number }>(
      `SELECT count(*)::int AS n FROM machine_authorizations
        WHERE status IN ('pending', 'approved') AND expires_at > now()`,
    );
    return rows[0]?.n ?? 0;
  }

  async findByDeviceCode(hash: Buffer): Promise<AuthorizationRow | null> {
    const { rows } = await hotPathPool(this.dataSource).query<RawAuthorizationRow>(
      `${SELECT_AUTHORIZATION} WHERE ma.device_code_hash = $1`,
      [hash],
    );
    return toRow(rows[0]);
  }

  async spendPollAndFind(
    scope: string,
    clientKey: string,
    hash: Buffer,
  ): Promise<{ hits: number; retryAfter: number; row: AuthorizationRow | null }> {
    const { hits, retryAfter, code } = await this.polls.lookup({ scope, clientKey, hash });
    return { hits, retryAfter, row: code ? toRow({ ...code, expires_at: new Date(code.expires_at) }) : null };
  }

  private async spendAndReadPollBatch(
    budgets: BudgetPool,
    groups: readonly BudgetGroup[],
    hashes: Buffer[],
  ): Promise<PollBatchRows> {
    const { rows } = await budgets.pool.query<{ hits: string | null; codes: string | null }>(POLL_BATCH_SQL, [
      groups.map((g) => g.scope),
      groups.map((g) => g.subject),
      groups.map((g) => g.count),
      hashes,
    ]);
    return { hits: JSON.parse(rows[0].hits ?? '[]'), codes: JSON.parse(rows[0].codes ?? '[]') };
  }

  async pendingRequests(scope: PendingRequestScope): Promise<PendingRequestRow[]> {
    if (scope.organizationIds.length === 0 && !scope.includeUnbound) return [];
    return this.dataSource.query(
      `SELECT svc_machine_request_id(ma.device_code_hash) AS request_id, ma.machine_name, ma.machine_id,
              ma.client_key, o.slug AS org, ma.created_at, ma.expires_at,
              coalesce(ma.claimed_by = $1, false) AS claimed_by_caller
         FROM machine_authorizations ma LEFT JOIN organizations o ON o.id = ma.organization_id
        WHERE ma.status = 'pending' AND ma.expires_at > now()
          AND (ma.claimed_by IS NULL OR ma.claimed_by = $1)
          AND (ma.organization_id = ANY ($2::int[]) OR ($3 AND ma.organization_id IS NULL))
        ORDER BY ma.created_at, ma.id`,
      [scope.actorId, scope.organizationIds, scope.includeUnbound],
    );
  }

  async activeOrganizations(actorId: number, role: 'admin' | null): Promise<number[]> {
    const rows: { organization_id: number }[] = await this.dataSource.query(
      `SELECT organization_id FROM memberships
        WHERE actor_id = $1 AND status = 'active' AND ($2::text IS NULL OR role = $2)`,
      [actorId, role],
    );
    return rows.map((r) => r.organization_id);
  }

  // Both rows locked in id order, so concurrent resolves cannot deadlock.
  async lockRequestAndCode(
    manager: EntityManager,
    requestId: string,
    userCodeHash: Buffer,
  ): Promise<{ target: AuthorizationRow | null; code: AuthorizationRow | null }> {
    const rows: (RawAuthorizationRow & { request_id: string; code_match: boolean })[] = await manager.query(
      `SELECT ${AUTHORIZATION_COLUMNS}, svc_machine_request_id(ma.device_code_hash) AS request_id,
              ma.user_code_hash = $1 AS code_match
         ${AUTHORIZATION_FROM}
        WHERE ma.user_code_hash = $1 OR svc_machine_request_id(ma.device_code_hash) = $2
        ORDER BY ma.id FOR UPDATE OF ma`,
      [userCodeHash, requestId],
    );
    return {
      target: toRow(rows.find((r) => r.request_id === requestId)),
      code: toRow(rows.find((r) => r.code_match)),
    };
  }

  async lockRequest(manager: EntityManager, requestId: string): Promise<AuthorizationRow | null> {
    const rows: RawAuthorizationRow[] = await manager.query(
      `SELECT ${AUTHORIZATION_COLUMNS} ${AUTHORIZATION_FROM}
        WHERE svc_machine_request_id(ma.device_code_hash) = $1 FOR UPDATE OF ma`,
      [requestId],
    );
    return toRow(rows[0]);
  }

  async findByUserCode(hash: Buffer, manager: EntityManager = this.dataSource.manager, lock = false) {
    const rows: RawAuthorizationRow[] = await manager.query(
      `${SELECT_AUTHORIZATION} WHERE ma.user_code_hash = $1${lock ? ' FOR UPDATE OF ma' : ''}`,
      [hash],
    );
    return toRow(rows[0]);
  }

  // Hosted starts carry no machine identity: the first poll names the machine, later polls must match it.
  async bindMachine(id: string, machineId: string, machineName: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE machine_authorizations SET machine_id = $2, machine_name = $3 WHERE id = $1 AND machine_id = ''`,
      [id, machineId, machineName],
    );
  }

  // parent: null for a person signed in with company sign-in.
  async recordDecision(
    manager: EntityManager,
    id: string,
    status: 'approved' | 'denied',
    actorId: number,
    organizationId: number,
    parent: ParentCredential | null,
  ): Promise<boolean> {
    const result: [unknown[], number] = await manager.query(
      `UPDATE machine_authorizations
          SET status = $2, claimed_by = $3, decided_by = $3, decided_at = now(), organization_id = $4,
              decided_with_token_id = $5, decided_with_machine_credential_id = $6
        WHERE id = $1 AND status = 'pending' AND expires_at > now()`,
      [
        id,
        status,
        actorId,
        organizationId,
        parent?.via === 'api_token' ? parent.id : null,
        parent?.via === 'machine_credential' ? parent.id : null,
      ],
    );
    return result[1] === 1;
  }

  // The one poll that flips approved → consumed wins; concurrent polls wait on the row lock and then match nothing.
  async markConsumed(manager: EntityManager, id: string, machineId: string): Promise<ConsumedAuthorization | null> {
    // UPDATE ... RETURNING answers [rows, rowCount] through TypeORM's query().
    const [rows]: [
      {
        decided_by: number | null;
        organization_id: number;
        machine_name: string;
        decided_with_token_id: number | null;
        decided_with_machine_credential_id: number | null;
      }[],
      number,
    ] = await manager.query(
      `UPDATE machine_authorizations SET status = 'consumed', consumed_at = now()
        WHERE id = $1 AND status = 'approved' AND expires_at > now() AND machine_id = $2
        RETURNING decided_by, organization_id, machine_name, decided_with_token_id, decided_with_machine_credential_id`,
      [id, machineId],
    );
    const row = rows[0];
    if (!row) return null;
    let parent: ParentCredential | null = null;
    if (row.decided_with_token_id !== null) parent = { via: 'api_token', id: row.decided_with_token_id };
    if (row.decided_with_machine_credential_id !== null) {
      parent = { via: 'machine_credential', id: row.decided_with_machine_credential_id };
    }
    return {
      decidedBy: row.decided_by,
      organizationId: row.organization_id,
      machineName: row.machine_name,
      parent,
    };
  }

  // FOR SHARE: a concurrent revocation either waits for the new credential (its cascade then reaches it) or committed
  // first. A machine re-approved with its own credential descends from that credential's parent. null: not live.
  async liveParent(
    manager: EntityManager,
    parent: ParentCredential,
    rotating: { machineId: string; organizationId: number },
  ): Promise<{ parent: ParentCredential | null; expiresAt: Date | null } | null> {
    const rows: {
      expires_at: Date | null;
      rotated: boolean;
      parent_token_id: number | null;
      parent_machine_credential_id: number | null;
    }[] =
      parent.via === 'api_token'
        ? await manager.query(
            `SELECT expires_at, false AS rotated, NULL::integer AS parent_token_id,
                    NULL::integer AS parent_machine_credential_id
               FROM api_tokens
              WHERE id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now()) FOR SHARE`,
            [parent.id],
          )
        : await manager.query(
            `SELECT expires_at, (machine_id = $2 AND organization_id = $3) AS rotated, parent_token_id,
                    parent_machine_credential_id
               FROM machine_credentials
              WHERE id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now()) FOR SHARE`,
            [parent.id, rotating.machineId, rotating.organizationId],
          );
    const row = rows[0];
    if (!row) return null;
    if (!row.rotated) return { parent, expiresAt: row.expires_at };
    if (row.parent_token_id !== null) {
      return this.liveParent(manager, { via: 'api_token', id: row.parent_token_id }, rotating);
    }
    if (row.parent_machine_credential_id !== null) {
      return this.liveParent(manager, { via: 'machine_credential', id: row.parent_machine_credential_id }, rotating);
    }
    return { parent: null, expiresAt: row.expires_at };
  }

  async approverStanding(
    manager: EntityManager,
    actorId: number | null,
    organizationId: number,
  ): Promise<ApproverStanding> {
    const rows: {
      actor_status: 'active' | 'disabled' | null;
      membership_status: 'active' | 'disabled' | null;
      role: 'admin' | 'member' | null;
      slug: string;
    }[] = await manager.query(
      `SELECT a.status AS actor_status, m.status AS membership_status, m.role, o.slug
         FROM organizations o
         LEFT JOIN actors a ON a.id = $1
         LEFT JOIN memberships m ON m.organization_id = o.id AND m.actor_id = $1
        WHERE o.id = $2`,
      [actorId, organizationId],
    );
    const row = rows[0];
    return {
      actorStatus: row?.actor_status ?? null,
      membershipStatus: row?.membership_status ?? null,
      role: row?.role ?? null,
      slug: row?.slug ?? '',
    };
  }

  // Rotation: the machine's previous credential here is revoked in the same transaction (triggers cascade).
  async issueCredential(
    manager: EntityManager,
    credential: {
      authorizationId: string;
      machineId: string;
      machineName: string;
      actorId: number;
      organizationId: number;
      tokenHash: Buffer;
      tokenPrefix: string;
      parent: ParentCredential | null;
      expiresAt: Date | null;
    },
  ): Promise<number> {
    await manager.query(
      `UPDATE machine_credentials SET revoked_at = now()
        WHERE organization_id = $1 AND machine_id = $2 AND revoked_at IS NULL`,
      [credential.organizationId, credential.machineId],
    );
    const rows: { id: number }[] = await manager.query(
      `INSERT INTO machine_credentials
              (machine_id, machine_name, actor_id, organization_id, token_hash, token_prefix, authorization_id,
               expires_at, parent_token_id, parent_machine_credential_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
      [
        credential.machineId,
        credential.machineName,
        credential.actorId,
        credential.organizationId,
        credential.tokenHash,
        credential.tokenPrefix,
        credential.authorizationId,
        credential.expiresAt,
        credential.parent?.via === 'api_token' ? credential.parent.id : null,
        credential.parent?.via === 'machine_credential' ? credential.parent.id : null,
      ],
    );
    await manager.query('UPDATE machine_authorizations SET credential_id = $2 WHERE id = $1', [
      credential.authorizationId,
      rows[0].id,
    ]);
    return rows[0].id;
  }
}
