import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { AccessService } from '../auth/access.service';
import { AuthenticatedActor, seesEveryProject } from '../auth/actor';
import { itemNotFound, itemsNotFound } from '../refs/refs.errors';
import { RefsService, ResolvedRef } from '../refs/refs.service';
import { projectNotFound } from './projects.errors';

export { projectNotFound };

// A project the caller cannot see answers exactly like one that does not exist.
@Injectable()
export class ProjectAccessService {
  constructor(
    private readonly access: AccessService,
    private readonly refs: RefsService,
  ) {}

  async visibleProjects(actor: AuthenticatedActor): Promise<string[] | null> {
    if (seesEveryProject(actor)) return null;
    return (await this.access.accessibleProjects(actor)).map((p) => p.id);
  }

  async visiblePrefixes(actor: AuthenticatedActor): Promise<string[] | null> {
    if (seesEveryProject(actor)) return null;
    return (await this.access.accessibleProjects(actor)).map((p) => p.public_item_prefix);
  }

  async canSee(actor: AuthenticatedActor, projects: readonly string[]): Promise<boolean> {
    const visible = await this.visibleProjects(actor);
    return visible === null || projects.every((p) => visible.includes(p));
  }

  // An unconfined server admin sees every project but not a missing one: a write would otherwise hit the foreign key.
  async assertProject(actor: AuthenticatedActor, project: string): Promise<void> {
    const accessible = await this.access.accessibleProjects(actor);
    if (!accessible.some((p) => p.id === project)) throw projectNotFound(project);
  }

  async resolveItem(actor: AuthenticatedActor, ref: string, manager?: EntityManager): Promise<ResolvedRef> {
    const item = await this.refs.resolve(ref, manager);
    if (!(await this.canSee(actor, [item.project]))) throw itemNotFound(ref);
    return item;
  }

  async resolveItems(
    actor: AuthenticatedActor,
    refs: readonly string[],
    manager?: EntityManager,
  ): Promise<Map<string, ResolvedRef>> {
    const resolved = await this.refs.resolveAll(refs, manager);
    const visible = await this.visibleProjects(actor);
    if (visible !== null) {
      const hidden = [...resolved.entries()].filter(([, r]) => !visible.includes(r.project)).map(([ref]) => ref);
      if (hidden.length > 0) {
        throw itemsNotFound(hidden);
      }
    }
    return resolved;
  }
}
