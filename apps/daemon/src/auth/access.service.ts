import { Injectable } from '@nestjs/common';

import { AuthenticatedActor } from './actor';
import { AuthRepository, ProjectAccessRow } from './auth.repository';

@Injectable()
export class AccessService {
  constructor(private readonly repository: AuthRepository) {}

  accessibleProjects(actor: AuthenticatedActor): Promise<ProjectAccessRow[]> {
    return this.repository.accessibleProjects(actor);
  }
}
