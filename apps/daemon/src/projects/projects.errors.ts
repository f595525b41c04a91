import { HttpStatus } from '@nestjs/common';

import { errorFactory, ErrorStatusTable } from '../common/domain-error';

export enum ProjectErrorCode {
  ProjectNotFound = 'project_not_found',
  ProjectExists = 'project_exists',
  PrefixTaken = 'prefix_taken',
}

export const PROJECT_ERROR_STATUS: ErrorStatusTable<ProjectErrorCode> = {
  [ProjectErrorCode.ProjectNotFound]: HttpStatus.NOT_FOUND,
  [ProjectErrorCode.ProjectExists]: HttpStatus.CONFLICT,
  [ProjectErrorCode.PrefixTaken]: HttpStatus.CONFLICT,
};

const projectError = errorFactory(PROJECT_ERROR_STATUS);

// A project the caller cannot see answers exactly like one that does not exist.
export const projectNotFound = (id: string) =>
  projectError(ProjectErrorCode.ProjectNotFound, `no project ${id}`, { project: id });

export const projectExists = (id: string) =>
  projectError(ProjectErrorCode.ProjectExists, `project ${id} already exists`);

export const prefixTaken = (prefix: string) =>
  projectError(ProjectErrorCode.PrefixTaken, `public_item_prefix ${prefix} is already used`);
