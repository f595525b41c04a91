import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { MachineCredentialRow } from './dto/machines.dto';

// Who may see or revoke a credential: its own actor, a server admin, or an active admin of its organization.
const MAY_MANAGE = `(c.actor_id = $1 OR $2::boolean OR EXISTS (
  SELECT 1 FROM memberships m
   WHERE m.organization_id = c.organization_id AND m.actor_id = $1 AND m.role = 'admin' AND m.status = 'active'))`;

@Injectable()
export class MachinesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  listManageable(actorId: number, isAdmin: boolean, includeRevoked: boolean): Promise<MachineCredentialRow[]> {
    return this.dataSource.query(
      `SELECT c.machine_id, c.machine_name, a.name AS actor, o.slug AS org, c.token_prefix, c.created_at,
              c.last_used_at, c.revoked_at
         FROM machine_credentials c
         JOIN actors a ON a.id = c.actor_id
         JOIN organizations o ON o.id = c.organization_id
        WHERE ${MAY_MANAGE} AND ($3::boolean OR c.revoked_at IS NULL)
        ORDER BY c.created_at DESC, c.id DESC`,
      [actorId, isAdmin, includeRevoked],
    );
  }

  // One statement: the bearer guard looks credentials up on every request, so the next request fails everywhere.
  // The API tokens the credential minted are revoked with it, transitively, by the trigger
  // tr_machine_credentials_revoke_minted (migration CredentialLineage), in the same transaction.
  async revoke(actorId: number, isAdmin: boolean, machineId: string): Promise<number> {
    const result: [unknown[], number] = await this.dataSource.query(
      `UPDATE machine_credentials c SET revoked_at = now()
        WHERE c.machine_id = $3 AND c.revoked_at IS NULL AND ${MAY_MANAGE}`,
      [actorId, isAdmin, machineId],
    );
    return result[1];
  }
}
