import { Injectable } from '@nestjs/common';

import { AuthenticatedActor } from './actor';
import { AuthRepository } from './auth.repository';
import { ProjectAccessRow } from './project-visibility';
import { hashToken } from './tokens';

@Injectable()
export class AccessService {
  constructor(private readonly repository: AuthRepository) {}

  accessibleProjects(actor: AuthenticatedActor): Promise<ProjectAccessRow[]> {
    return this.repository.accessibleProjects(actor);
  }

  // The actor an API token (as presented, never stored raw) belongs to, or null: the approval page's token sign-in.
  actorByToken(token: string): Promise<AuthenticatedActor | null> {
    return this.repository.findActorByCredentialHash(hashToken(token));
  }
}
