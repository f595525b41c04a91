import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { AccessService } from '../auth/access.service';
import { AuthenticatedActor, seesEveryProject } from '../auth/actor';
import { itemNotFound, itemsNotFound } from '../refs/refs.errors';
import { parseRef, RefParts, RefsService, ResolvedRef } from '../refs/refs.service';
import { projectNotFound } from './projects.errors';

export { projectNotFound };

// An item a write names, found by the write's own locking statement (ADR 0097): its ref split, and the projects the
// caller sees (null: every one), checked on the row that statement locked.
export interface ItemTarget extends RefParts {
  ref: string;
  projects: readonly string[] | null;
}

export function targets(target: ItemTarget, project: string): boolean {
  return target.projects === null || target.projects.includes(project);
}

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

  // The policy of a project the caller may write to, as text (what a create's insert compares it with); a project
  // the caller cannot see is not found.
  async projectPolicy(actor: AuthenticatedActor, project: string): Promise<string> {
    const policy = await this.access.projectPolicy(actor, project);
    if (policy === null) throw projectNotFound(project);
    return policy;
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

  // Refuses a malformed ref; reads nothing for a caller who sees every project.
  async itemTarget(actor: AuthenticatedActor, ref: string): Promise<ItemTarget> {
    const parts = parseRef(ref);
    return { ...parts, ref, projects: await this.visibleProjects(actor) };
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
