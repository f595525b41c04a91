import { HttpStatus } from '@nestjs/common';

import { errorFactory, ErrorStatusTable } from '../common/domain-error';

export enum ProjectErrorCode {
  ProjectNotFound = 'project_not_found',
  ProjectExists = 'project_exists',
  PrefixTaken = 'prefix_taken',
  OrganizationMembershipRequired = 'organization_membership_required',
  // the policy's wip_cap is changed by an admin of the project's organization only
  WipCapPolicyForbidden = 'wip_cap_policy_forbidden',
  // a policy key that changes a rule for everyone (deployment_approval_role) is an admin's
  PolicyAdminRequired = 'policy_admin_required',
}

export const PROJECT_ERROR_STATUS: ErrorStatusTable<ProjectErrorCode> = {
  [ProjectErrorCode.ProjectNotFound]: HttpStatus.NOT_FOUND,
  [ProjectErrorCode.ProjectExists]: HttpStatus.CONFLICT,
  [ProjectErrorCode.PrefixTaken]: HttpStatus.CONFLICT,
  [ProjectErrorCode.OrganizationMembershipRequired]: HttpStatus.FORBIDDEN,
  [ProjectErrorCode.WipCapPolicyForbidden]: HttpStatus.FORBIDDEN,
  [ProjectErrorCode.PolicyAdminRequired]: HttpStatus.FORBIDDEN,
};

const projectError = errorFactory(PROJECT_ERROR_STATUS);

export const projectNotFound = (id: string) =>
  projectError(ProjectErrorCode.ProjectNotFound, `no project ${id}`, { project: id });

export const projectExists = (id: string) =>
  projectError(ProjectErrorCode.ProjectExists, `project ${id} already exists`);

export const prefixTaken = (prefix: string) =>
  projectError(ProjectErrorCode.PrefixTaken, `public_item_prefix ${prefix} is already used`);

// Nothing is created without an organization: a project belongs to one the caller is an active member of.
export const organizationMembershipRequired = () =>
  projectError(
    ProjectErrorCode.OrganizationMembershipRequired,
    'you are not an active member of an organization this project could belong to; ask an organization admin to add you',
  );

export const wipCapPolicyForbidden = (id: string, current: number | undefined, organization: string | null) =>
  projectError(
    ProjectErrorCode.WipCapPolicyForbidden,
    `only an admin of ${organization === null ? 'the server' : `organization ${organization}`} may change the WIP cap of ${id} (policy wip_cap ${current ?? 'unset, the built-in default'}); ask an admin`,
    { project: id, policy_wip_cap: current ?? null, organization },
  );

export const policyAdminRequired = (key: string, organization: string | null) =>
  projectError(
    ProjectErrorCode.PolicyAdminRequired,
    `only an admin${organization ? ` of ${organization}` : ' of the server'} changes the project policy's ${key}`,
    { field: `policy.${key}`, organization },
  );
