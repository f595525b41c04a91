// Who sees which project, for every repository that filters by it (the auth feature's rule, shared as SQL so the
// request guard, the event stream's re-check and the events query cannot drift apart).

export interface ProjectAccessRow {
  id: string;
  name: string;
  public_item_prefix: string;
}

// The organization rule as one SQL condition: a row of organization `organization` (an SQL expression) is seen by a
// server admin (within the scope, when the request is confined to one organization) and by an active member of that
// organization (within the scope). Actor id, is-admin flag and scope (organization id or NULL) are SQL parameters or
// expressions. A NULL organization is seen by server admins only.
export function accessibleOrganizationWhere(
  organization: string,
  actorId: string,
  isAdmin: string,
  scope: string,
): string {
  return `(${scope}::integer IS NULL OR ${organization} = ${scope}::integer)
          AND ((${isAdmin})::boolean
               OR EXISTS (SELECT 1 FROM memberships am
                           WHERE am.organization_id = ${organization} AND am.actor_id = ${actorId}
                             AND am.status = 'active'))`;
}

// The visibility rule as one SQL condition, shared by accessibleProjects and the event stream's re-check so the two
// cannot drift: a project is seen as its organization is (accessibleOrganizationWhere). Records of an organization
// with no project (ouroboros entries) use the same rule.
export function accessibleProjectWhere(p: string, actorId: string, isAdmin: string, scope: string): string {
  return accessibleOrganizationWhere(`${p}.organization_id`, actorId, isAdmin, scope);
}
