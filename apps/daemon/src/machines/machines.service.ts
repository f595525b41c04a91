import { Injectable } from '@nestjs/common';

import { MachineListResponse, RevokeMachineResponse } from '@app/contracts';

import { AuthenticatedActor, isServerAdmin, organizationScope } from '../auth/actor';
import { notFound } from '../common/domain-error';
import { toMachineListResponse } from './dto/machines.dto';
import { MachineManager, MachinesRepository } from './machines.repository';

// A request confined to an organization manages that organization's machines only (its own included); a confined
// server admin manages them as an admin of that organization.
const managerOf = (actor: AuthenticatedActor): MachineManager => ({
  actorId: actor.id,
  serverAdmin: isServerAdmin(actor),
  scope: organizationScope(actor),
  scopeAdmin: actor.isAdmin && organizationScope(actor) !== null,
});

@Injectable()
export class MachinesService {
  constructor(private readonly repository: MachinesRepository) {}

  async list(actor: AuthenticatedActor, includeRevoked: boolean): Promise<MachineListResponse> {
    return toMachineListResponse(await this.repository.listManageable(managerOf(actor), includeRevoked));
  }

  async revoke(actor: AuthenticatedActor, machineId: string): Promise<RevokeMachineResponse> {
    const revoked = await this.repository.revoke(managerOf(actor), machineId);
    if (revoked === 0) throw notFound('live machine credential you may revoke');
    return { machine_id: machineId, revoked };
  }
}
