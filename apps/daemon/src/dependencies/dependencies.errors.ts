import { HttpStatus } from '@nestjs/common';

import { errorFactory, ErrorStatusTable } from '../common/domain-error';

export enum DependencyErrorCode {
  InvalidSatisfaction = 'invalid_satisfaction',
  SelfDependency = 'self_dependency',
  InvalidValue = 'invalid_value',
  DependencyCycle = 'dependency_cycle',
  DependencyNotFound = 'dependency_not_found',
  // an organization is a wall: an edge may not join items of two organizations
  DependencyCrossesOrganization = 'dependency_crosses_organization',
}

export const DEPENDENCY_ERROR_STATUS: ErrorStatusTable<DependencyErrorCode> = {
  [DependencyErrorCode.InvalidSatisfaction]: HttpStatus.BAD_REQUEST,
  [DependencyErrorCode.SelfDependency]: HttpStatus.BAD_REQUEST,
  [DependencyErrorCode.InvalidValue]: HttpStatus.BAD_REQUEST,
  [DependencyErrorCode.DependencyCycle]: HttpStatus.CONFLICT,
  [DependencyErrorCode.DependencyNotFound]: HttpStatus.NOT_FOUND,
  [DependencyErrorCode.DependencyCrossesOrganization]: HttpStatus.CONFLICT,
};

const dependencyError = errorFactory(DEPENDENCY_ERROR_STATUS);

export const invalidSatisfaction = (raw: string, detail: string) =>
  dependencyError(DependencyErrorCode.InvalidSatisfaction, `satisfaction "${raw.slice(0, 80)}": ${detail}`, {
    satisfaction: raw,
    forms: ['status:<stage-id>', 'fact:merged', 'fact:deployed:<environment-name>'],
  });

export const selfDependency = (ref: string) =>
  dependencyError(DependencyErrorCode.SelfDependency, `${ref} cannot depend on itself`);

export const evidenceTooLarge = (limit: number) =>
  dependencyError(DependencyErrorCode.InvalidValue, `evidence is larger than ${limit} bytes`, { field: 'evidence' });

export const activationCycle = (dependent: string, blocker: string, cycle: string[]) =>
  dependencyError(
    DependencyErrorCode.DependencyCycle,
    `${dependent} waiting on ${blocker} would close an activation cycle: ${cycle.join(' → ')}`,
    { cycle },
  );

export const dependencyNotFound = (dependent: string, gate: string, blocker: string) =>
  dependencyError(DependencyErrorCode.DependencyNotFound, `${dependent} has no ${gate} dependency on ${blocker}`);

// Only a caller who sees both items gets here (anyone else is answered item_not_found first).
export const dependencyCrossesOrganization = (dependent: string, blocker: string) =>
  dependencyError(
    DependencyErrorCode.DependencyCrossesOrganization,
    `${dependent} cannot depend on ${blocker}: they belong to different organizations, and a dependency stays inside one`,
    { dependent, blocker },
  );
