import { Injectable } from '@nestjs/common';

import { MachineListResponse, RevokeMachineResponse } from '@app/contracts';

import { AuthenticatedActor } from '../auth/actor';
import { notFound } from '../common/domain-error';
import { toMachineListResponse } from './dto/machines.dto';
import { MachinesRepository } from './machines.repository';

@Injectable()
export class MachinesService {
  constructor(private readonly repository: MachinesRepository) {}

  async list(actor: AuthenticatedActor, includeRevoked: boolean): Promise<MachineListResponse> {
    return toMachineListResponse(await this.repository.listManageable(actor.id, actor.isAdmin, includeRevoked));
  }

  async revoke(actor: AuthenticatedActor, machineId: string): Promise<RevokeMachineResponse> {
    const revoked = await this.repository.revoke(actor.id, actor.isAdmin, machineId);
    if (revoked === 0) throw notFound('live machine credential you may revoke');
    return { machine_id: machineId, revoked };
  }
}
