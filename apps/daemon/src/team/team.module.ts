import { Module } from '@nestjs/common';

import { ActorsController, MembersController, OrganizationsController, TokensController } from './team.controller';
import { TeamRepository } from './team.repository';
import { TeamService } from './team.service';

@Module({
  controllers: [ActorsController, MembersController, TokensController, OrganizationsController],
  providers: [TeamService, TeamRepository],
})
export class TeamModule {}
