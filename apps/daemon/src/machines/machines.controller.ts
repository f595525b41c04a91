import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';

import { MachineListResponse, RevokeMachineResponse } from '@app/contracts';

import { AuthenticatedActor, CurrentActor } from '../auth/actor';
import { ListMachinesQueryDto, RevokeMachineDto } from './dto/machines.dto';
import { MachinesService } from './machines.service';
import { Writes } from '../rulebook/writes.decorator';

@Controller('v1/machines')
export class MachinesController {
  constructor(private readonly service: MachinesService) {}

  @Get()
  list(@CurrentActor() actor: AuthenticatedActor, @Query() query: ListMachinesQueryDto): Promise<MachineListResponse> {
    return this.service.list(actor, query.include_revoked ?? false);
  }

  @Writes('scope', 'role')
  @Post('revoke')
  @HttpCode(200)
  revoke(@CurrentActor() actor: AuthenticatedActor, @Body() dto: RevokeMachineDto): Promise<RevokeMachineResponse> {
    return this.service.revoke(actor, dto.machine_id);
  }
}
