import { HttpStatus } from '@nestjs/common';

import { ProjectAccessRow } from '../auth/project-visibility';
import { errorFactory, ErrorStatusTable } from '../common/domain-error';

export enum FrontierErrorCode {
  ProjectRequired = 'project_required',
  ProjectNotFound = 'project_not_found',
  EntrypointUnavailable = 'entrypoint_unavailable',
}

export const FRONTIER_ERROR_STATUS: ErrorStatusTable<FrontierErrorCode> = {
  [FrontierErrorCode.ProjectRequired]: HttpStatus.BAD_REQUEST,
  [FrontierErrorCode.ProjectNotFound]: HttpStatus.NOT_FOUND,
  [FrontierErrorCode.EntrypointUnavailable]: HttpStatus.CONFLICT,
};

const frontierError = errorFactory(FRONTIER_ERROR_STATUS);

export const ENTRYPOINT_RECOVERY =
  "inspect the item's pin and workflow version, then refresh the schedule against a build that exposes the entrypoint";

export const projectRequired = (projects: ProjectAccessRow[]) =>
  frontierError(
    FrontierErrorCode.ProjectRequired,
    projects.length > 0
      ? `a project is required (--project); you can access: ${projects.map((p) => p.id).join(', ')}`
      : 'a project is required (--project); you can access no project yet',
    { projects: projects.map((p) => ({ id: p.id, name: p.name, public_item_prefix: p.public_item_prefix })) },
  );

// A project the caller may not see answers exactly like a missing one.
export const projectNotFound = (project: string) =>
  frontierError(FrontierErrorCode.ProjectNotFound, `no project ${project}`, { project });
