// Who sees which project, for every repository that filters by it (the auth feature's rule, shared as SQL so the
// request guard, the event stream's re-check and the events query cannot drift apart).

export interface ProjectAccessRow {
  id: string;
  name: string;
  public_item_prefix: string;
}

// The visibility rule as one SQL condition, shared by accessibleProjects and the event stream's re-check so the two
// cannot drift: actor id, is-admin flag and scope (organization id or NULL) are SQL parameters or expressions.
export function accessibleProjectWhere(p: string, actorId: string, isAdmin: string, scope: string): string {
  return `(${scope}::integer IS NULL OR ${p}.organization_id = ${scope}::integer)
          AND ((${isAdmin})::boolean
               OR EXISTS (SELECT 1 FROM memberships am
                           WHERE am.organization_id = ${p}.organization_id AND am.actor_id = ${actorId}
                             AND am.status = 'active'))`;
}
