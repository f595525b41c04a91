// Every mutating route names the rules it passes (@Writes); a declared rule the write never checked is a defect
// the census test finds.
export const RULES = [
  // the caller sees the organization and project it writes in, within its credential's confinement
  'scope',
  // the caller holds the role the write needs (organization admin, server admin, the session's owner)
  'role',
  // doing the work on a claimed item is the holder's
  'claim',
  // the WIP cap is the project's policy; raising it is an admin's
  'wip_cap',
  // a status move passes its stage's gates
  'stage_gates',
  // a deployment stage that needs an approval has one from the right role
  'approval_stages',
  // a dependency joins two items of one organization
  'org_edges',
] as const;

export type Rule = (typeof RULES)[number];
