import { Module } from '@nestjs/common';

import { ActorsController, MembersController, TokensController } from './team.controller';
import { TeamRepository } from './team.repository';
import { TeamService } from './team.service';

// People, memberships and API tokens (issue 13).
@Module({
  controllers: [ActorsController, MembersController, TokensController],
  providers: [TeamService, TeamRepository],
  exports: [TeamRepository],
})
export class TeamModule {}
