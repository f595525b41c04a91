import { Injectable } from '@nestjs/common';

import { DEFAULT_WIP_CAP } from '@app/core';

import { AccessService } from '../../auth/access.service';
import { AuthenticatedActor } from '../../auth/actor';
import { itemNotFound, RefsService } from '../../refs/refs.service';
import { MAX_WIP_CAP } from '../dto/frontier.dto';
import { projectNotFound, projectRequired } from '../frontier.errors';
import { FrontierRepository, ProjectRow } from './frontier.repository';

// Every read resolves its project here before the graph cache is touched.

export function wipCapOf(project: ProjectRow, override: number | undefined): number {
  if (override !== undefined) return override;
  const stored = project.policy?.wip_cap;
  return typeof stored === 'number' && Number.isInteger(stored) && stored >= 0 && stored <= MAX_WIP_CAP
    ? stored
    : DEFAULT_WIP_CAP;
}

@Injectable()
export class FrontierProjects {
  constructor(
    private readonly repository: FrontierRepository,
    private readonly access: AccessService,
    private readonly refs: RefsService,
  ) {}

  async resolveProject(actor: AuthenticatedActor, projectId: string | undefined): Promise<ProjectRow> {
    const accessible = await this.access.accessibleProjects(actor);
    if (!projectId) throw projectRequired(accessible);
    if (!accessible.some((p) => p.id === projectId)) throw projectNotFound(projectId);
    const project = await this.repository.findProject(projectId);
    if (!project) throw projectNotFound(projectId);
    return project;
  }

  async accessibleProjects(actor: AuthenticatedActor): Promise<ProjectRow[]> {
    const accessible = await this.access.accessibleProjects(actor);
    return this.repository.findProjects(accessible.map((p) => p.id));
  }

  // An item of a project the caller cannot see answers exactly as an unknown one (404 item_not_found): naming its
  // project would tell an outsider the project exists.
  async resolveItem(
    actor: AuthenticatedActor,
    ref: string,
  ): Promise<{ resolved: { id: number; ref: string; project: string }; project: ProjectRow }> {
    const resolved = await this.refs.resolve(ref);
    const accessible = await this.access.accessibleProjects(actor);
    if (!accessible.some((p) => p.id === resolved.project)) throw itemNotFound(ref);
    const project = await this.repository.findProject(resolved.project);
    if (!project) throw itemNotFound(ref);
    return { resolved, project };
  }
}
