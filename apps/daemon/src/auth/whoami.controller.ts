import { Controller, Get } from '@nestjs/common';

import { AuthenticatedActor, CurrentActor } from './actor';

export interface WhoAmIResponse {
  actor_id: number;
  name: string;
  is_admin: boolean;
  via: string;
  machine_id: string | null;
  expires_at: string | null;
}

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
