import { Injectable } from '@nestjs/common';

import { MachineListResponse, RevokeMachineResponse } from '@app/contracts';
import { MachineManager, machineManager } from '@app/core';

import { AuthenticatedActor, isServerAdmin, organizationScope } from '../auth/actor';
import { notFound } from '../common/domain-error';
import { toMachineListResponse } from './dto/machines.dto';
import { MachinesRepository } from './machines.repository';

const managerOf = (actor: AuthenticatedActor): MachineManager =>
  machineManager({
    actorId: actor.id,
    isAdmin: actor.isAdmin,
    isServerAdmin: isServerAdmin(actor),
    organizationScope: organizationScope(actor),
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
