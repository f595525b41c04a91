// Only an admin of the project's organization (or an unconfined server admin) raises the cap; anyone may ask a
// lower one. A what-if cap on a read is not a raise and never comes here.

export const WIP_CAP_OVERRIDE_FORBIDDEN = 'wip_cap_override_forbidden';
export const WIP_CAP_POLICY_FORBIDDEN = 'wip_cap_policy_forbidden';

export type WipCapOverride = { cap: number } | { refuse: typeof WIP_CAP_OVERRIDE_FORBIDDEN };

// Only then does the caller's standing matter (the daemon looks it up only then).
export function raisesWipCap(policyCap: number, asked: number | undefined): boolean {
  return asked !== undefined && asked > policyCap;
}

export function wipCapOverride(input: {
  policyCap: number;
  asked: number | undefined;
  isOrgAdmin: boolean;
}): WipCapOverride {
  const { policyCap, asked, isOrgAdmin } = input;
  if (asked === undefined) return { cap: policyCap };
  if (!raisesWipCap(policyCap, asked) || isOrgAdmin) return { cap: asked };
  return { refuse: WIP_CAP_OVERRIDE_FORBIDDEN };
}

export type WipCapPolicyChange = { allow: true } | { refuse: typeof WIP_CAP_POLICY_FORBIDDEN };

// A policy patch and the stored wip_cap: `next` undefined leaves the key alone, null removes it (back to the
// built-in default), a number sets it. Any change of the stored value, up or down, is an organization admin's;
// a patch that leaves it as stored is anyone's who may edit the project.
export function wipCapPolicyChange(input: {
  current: number | undefined;
  next: number | null | undefined;
  isOrgAdmin: boolean;
}): WipCapPolicyChange {
  const { current, next, isOrgAdmin } = input;
  if (next === undefined || isOrgAdmin) return { allow: true };
  const unchanged = next === null ? current === undefined : next === current;
  return unchanged ? { allow: true } : { refuse: WIP_CAP_POLICY_FORBIDDEN };
}
