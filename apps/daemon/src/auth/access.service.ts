import { Injectable } from '@nestjs/common';

import { AuthenticatedActor, seesEveryProject } from './actor';
import { AuthRepository } from './auth.repository';
import { ProjectAccessRow } from './project-visibility';
import { hashToken } from './tokens';

@Injectable()
export class AccessService {
  constructor(private readonly repository: AuthRepository) {}

  accessibleProjects(actor: AuthenticatedActor): Promise<ProjectAccessRow[]> {
    return this.repository.accessibleProjects(actor);
  }

  projectPolicy(actor: AuthenticatedActor, projectId: string): Promise<string | null> {
    return this.repository.projectPolicy(actor, projectId);
  }

  // Who decides the project's team policies (the WIP cap); the slug names who to ask in a refusal.
  async projectAdministration(
    actor: AuthenticatedActor,
    projectId: string,
  ): Promise<{ organization: string | null; isOrgAdmin: boolean }> {
    const row = await this.repository.projectAdministration(actor, projectId);
    return { organization: row?.organization ?? null, isOrgAdmin: seesEveryProject(actor) || row?.admin === true };
  }

  // The approval page's token sign-in; a metrics-only token signs in nowhere.
  async actorByToken(token: string): Promise<AuthenticatedActor | null> {
    const actor = await this.repository.findActorByCredentialHash(hashToken(token));
    return actor?.scope === 'metrics' ? null : actor;
  }
}
