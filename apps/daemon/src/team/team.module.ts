import { Module } from '@nestjs/common';

import { ActorsController, MembersController, OrganizationsController, TokensController } from './team.controller';
import { TeamRepository } from './team.repository';
import { TeamService } from './team.service';

// People, memberships and API tokens (issue 13); organizations and the walls between them (issue 24).
@Module({
  controllers: [ActorsController, MembersController, TokensController, OrganizationsController],
  providers: [TeamService, TeamRepository],
})
export class TeamModule {}
