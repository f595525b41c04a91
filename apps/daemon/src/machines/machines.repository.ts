import { Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';

import type { MachineManager } from '@app/core';

import { InjectDataSource } from '../common/inject-data-source';
import { MachineCredentialRow } from './dto/machines.dto';

const managerParams = (m: MachineManager) => [m.actorId, m.serverAdmin, m.scope, m.scopeAdmin];

// The manager's rule (libs/core machineManager) as a condition: $1 the actor, $2 an unconfined server admin, $3 the
// organization the request is confined to, $4 a confined server admin.
const MAY_MANAGE = `(($3::integer IS NULL OR c.organization_id = $3::integer)
  AND (c.actor_id = $1 OR $2::boolean OR $4::boolean OR EXISTS (
    SELECT 1 FROM memberships m
     WHERE m.organization_id = c.organization_id AND m.actor_id = $1 AND m.role = 'admin' AND m.status = 'active')))`;

@Injectable()
export class MachinesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  listManageable(manager: MachineManager, includeRevoked: boolean): Promise<MachineCredentialRow[]> {
    return this.dataSource.query(
      `SELECT c.machine_id, c.machine_name, a.name AS actor, o.slug AS org, c.token_prefix, c.created_at,
              c.last_used_at, c.expires_at, c.revoked_at
         FROM machine_credentials c
         JOIN actors a ON a.id = c.actor_id
         JOIN organizations o ON o.id = c.organization_id
        WHERE ${MAY_MANAGE} AND ($5::boolean OR c.revoked_at IS NULL)
        ORDER BY c.created_at DESC, c.id DESC`,
      [...managerParams(manager), includeRevoked],
    );
  }

  // The bearer guard looks credentials up on every request, so the next request fails everywhere. Minted tokens are
  // revoked with it by the trigger tr_machine_credentials_revoke_minted, in the same transaction.
  async revoke(manager: MachineManager, machineId: string): Promise<number> {
    const result: [unknown[], number] = await this.dataSource.query(
      `UPDATE machine_credentials c SET revoked_at = now()
        WHERE c.machine_id = $5 AND c.revoked_at IS NULL AND ${MAY_MANAGE}`,
      [...managerParams(manager), machineId],
    );
    return result[1];
  }
}
