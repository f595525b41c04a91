import { Controller, Get } from '@nestjs/common';

import type { WhoAmIResponse } from '@app/contracts';

import { AuthenticatedActor, CurrentActor } from './actor';

export type { WhoAmIResponse } from '@app/contracts';

@Controller('v1/whoami')
export class WhoAmIController {
  @Get()
  whoami(@CurrentActor() actor: AuthenticatedActor): WhoAmIResponse {
    return {
      actor_id: actor.id,
      name: actor.name,
      is_admin: actor.isAdmin,
      via: actor.via,
      machine_id: actor.machineId,
      expires_at: actor.expiresAt?.toISOString() ?? null,
    };
  }
}
