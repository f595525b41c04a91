// Shared as SQL so the request guard, the stream's re-check and the events query cannot drift apart.

export interface ProjectAccessRow {
  id: string;
  name: string;
  public_item_prefix: string;
}

// Server admins see every organization (within the request's confinement), active members their own; a NULL
// organization only server admins.
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

export function accessibleProjectWhere(p: string, actorId: string, isAdmin: string, scope: string): string {
  return accessibleOrganizationWhere(`${p}.organization_id`, actorId, isAdmin, scope);
}
