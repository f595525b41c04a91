import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { ProjectListResponse, ProjectWire } from '@app/contracts/backlog';
import { wipCapPolicyChange } from '@app/core';

import { AccessService } from '../auth/access.service';
import { AuthenticatedActor } from '../auth/actor';
import { validationFailed } from '../common/domain-error';
import { CreateProjectDto, ProjectRow, toProjectResponse, UpdateProjectDto } from './dto/projects.dto';
import { ProjectAccessService } from './project-access.service';
import {
  organizationMembershipRequired,
  policyAdminRequired,
  prefixTaken,
  projectExists,
  projectNotFound,
  wipCapPolicyForbidden,
} from './projects.errors';
import { DEPLOYMENT_APPROVAL_ROLE_KEY, mergePolicy, PolicyProblem, validatePolicyPatch } from './project-policy';
import { NewProject, ProjectsRepository } from './projects.repository';

export const policyInvalid = (problems: PolicyProblem[]) => validationFailed(problems);

@Injectable()
export class ProjectsService {
  constructor(
    private readonly repository: ProjectsRepository,
    private readonly access: ProjectAccessService,
    private readonly standing: AccessService,
  ) {}

  findRow(id: string, manager?: EntityManager): Promise<ProjectRow | null> {
    return this.repository.find(id, manager);
  }

  conflictOf(id: string, prefix: string, manager?: EntityManager): Promise<'id' | 'prefix' | null> {
    return this.repository.conflictOf(id, prefix, manager);
  }

  organizationFor(actor: AuthenticatedActor, manager?: EntityManager): Promise<number | null> {
    return this.repository.organizationFor(actor, manager);
  }

  async administers(actor: AuthenticatedActor, project: string): Promise<boolean> {
    return (await this.standing.projectAdministration(actor, project)).isOrgAdmin;
  }

  insertRow(project: NewProject, manager?: EntityManager): Promise<boolean> {
    return this.repository.insert(project, manager);
  }

  async create(actor: AuthenticatedActor, dto: CreateProjectDto): Promise<ProjectWire> {
    const policy = dto.policy ?? {};
    const problems = validatePolicyPatch(policy);
    if (problems.length > 0) throw policyInvalid(problems);
    const organizationId = await this.repository.organizationFor(actor);
    if (organizationId === null) throw organizationMembershipRequired();
    const inserted = await this.repository.insert({
      id: dto.id,
      name: dto.name,
      prefix: dto.public_item_prefix,
      policy: mergePolicy({}, policy),
      organizationId,
    });
    if (!inserted) {
      const conflict = await this.repository.conflictOf(dto.id, dto.public_item_prefix);
      throw conflict === 'prefix' ? prefixTaken(dto.public_item_prefix) : projectExists(dto.id);
    }
    return toProjectResponse((await this.repository.find(dto.id))!);
  }

  async list(actor: AuthenticatedActor): Promise<ProjectListResponse> {
    const rows = await this.repository.list(await this.access.visibleProjects(actor));
    return { projects: rows.map(toProjectResponse) };
  }

  async get(actor: AuthenticatedActor, id: string): Promise<ProjectWire> {
    await this.access.assertProject(actor, id);
    const row = await this.repository.find(id);
    if (!row) throw projectNotFound(id);
    return toProjectResponse(row);
  }

  async update(actor: AuthenticatedActor, id: string, dto: UpdateProjectDto): Promise<ProjectWire> {
    await this.access.assertProject(actor, id);
    const patch = dto.policy ?? {};
    const problems = validatePolicyPatch(patch);
    if (problems.length > 0) throw policyInvalid(problems);
    const next = patch.wip_cap as number | null | undefined;
    // the WIP cap and who must approve the project's deployments are team policies: an admin's
    const approvalRole = Object.hasOwn(patch, DEPLOYMENT_APPROVAL_ROLE_KEY);
    const administration =
      next !== undefined || approvalRole ? await this.standing.projectAdministration(actor, id) : null;
    const isOrgAdmin = administration?.isOrgAdmin === true;
    if (approvalRole && !isOrgAdmin) {
      throw policyAdminRequired(DEPLOYMENT_APPROVAL_ROLE_KEY, administration?.organization ?? null);
    }
    return this.repository.transaction(async (manager) => {
      const row = await this.repository.findForUpdate(id, manager);
      if (!row) throw projectNotFound(id);
      const current = typeof row.policy.wip_cap === 'number' ? row.policy.wip_cap : undefined;
      if ('refuse' in wipCapPolicyChange({ current, next, isOrgAdmin })) {
        throw wipCapPolicyForbidden(id, current, row.organization);
      }
      await this.repository.update(id, dto.name, mergePolicy(row.policy, patch), manager);
      return toProjectResponse((await this.repository.find(id, manager))!);
    });
  }
}
