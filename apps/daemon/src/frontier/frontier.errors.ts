import { ProjectAccessRow } from '../auth/auth.repository';
import { DomainError } from '../common/domain-error';

export const FRONTIER_ERROR_CODES = {
  projectRequired: 'project_required',
  projectNotFound: 'project_not_found',
  entrypointUnavailable: 'entrypoint_unavailable',
} as const;

export const ENTRYPOINT_RECOVERY =
  "inspect the item's pin and workflow version, then refresh the schedule against a build that exposes the entrypoint";

export const projectRequired = (projects: ProjectAccessRow[]) =>
  new DomainError(
    FRONTIER_ERROR_CODES.projectRequired,
    projects.length > 0
      ? `a project is required (--project); you can access: ${projects.map((p) => p.id).join(', ')}`
      : 'a project is required (--project); you can access no project yet',
    400,
    { projects: projects.map((p) => ({ id: p.id, name: p.name, public_item_prefix: p.public_item_prefix })) },
  );

// A project the caller may not see answers exactly like a missing one.
export const projectNotFound = (project: string) =>
  new DomainError(FRONTIER_ERROR_CODES.projectNotFound, `no project ${project}`, 404, { project });
