export type ApprovalRole = 'member' | 'admin';

export const APPROVAL_RANK: Record<ApprovalRole, number> = { member: 1, admin: 2 };

export const OPEN_RUN_STATUSES: ReadonlySet<string> = new Set(['pending', 'running', 'halted']);

export interface GatedStage {
  name: string;
  approval: { role: ApprovalRole } | null;
  capabilities: readonly string[];
}

export interface MembershipStanding {
  organization: string | null;
  role: string | null;
  status: string | null;
}

export interface ApproverStanding {
  role: ApprovalRole | null;
  organization: string | null;
  policyAdmin: boolean;
}

export function strongestApproval(needs: Iterable<[string, ApprovalRole]>): [string, ApprovalRole] | null {
  let best: [string, ApprovalRole] | null = null;
  for (const need of needs) if (best === null || APPROVAL_RANK[need[1]] > APPROVAL_RANK[best[1]]) best = need;
  return best;
}

// Who may write a project's gated flows, environments and runs is who may approve its deployments; the server admin
// writes them in every organization.
export function approverStanding(
  isServerAdmin: boolean,
  membership: MembershipStanding,
  policyApprovalRole: unknown,
): ApproverStanding {
  const policyAdmin = policyApprovalRole === 'admin';
  const { organization } = membership;
  if (isServerAdmin || organization === null)
    return { role: isServerAdmin ? 'admin' : 'member', organization, policyAdmin };
  if (membership.status !== 'active') return { role: null, organization, policyAdmin };
  return { role: membership.role === 'admin' ? 'admin' : 'member', organization, policyAdmin };
}

export function approverShortfall(
  standing: Pick<ApproverStanding, 'role'>,
  need: [string, ApprovalRole] | null,
): { environment: string; required: ApprovalRole } | null {
  if (need === null) return null;
  if (standing.role !== null && APPROVAL_RANK[standing.role] >= APPROVAL_RANK[need[1]]) return null;
  return { environment: need[0], required: need[1] };
}

// The approvals a flow's own approval stages need, as [environment, role]; the project's policy may raise every one
// to admin.
export function stageApprovalNeeds(
  stages: readonly (GatedStage & { environment: string | null })[],
  policyAdmin: boolean,
): [string, ApprovalRole][] {
  const needs: [string, ApprovalRole][] = [];
  for (const stage of stages) {
    if (stage.approval === null) continue;
    needs.push([stage.environment ?? stage.name, policyAdmin ? 'admin' : stage.approval.role]);
  }
  return needs;
}

// Retiring and un-retiring an environment: an admin of the project's organization, or a server admin whose request
// is not confined to one organization.
export function mayRetireEnvironment(seesEveryProject: boolean, membership: MembershipStanding): boolean {
  if (seesEveryProject) return true;
  return membership.organization !== null && membership.role === 'admin' && membership.status === 'active';
}

// A run's position in its flow: stage_index counts stages from 1 ("stage 2 of 3"), 0 = not at a stage yet; a named
// stage wins over the number.
export function runPosition(
  stages: readonly GatedStage[],
  stageIndex: number,
  currentStage: string | undefined,
): number {
  const named = currentStage === undefined ? -1 : stages.findIndex((s) => s.name === currentStage);
  return named >= 0 ? named + 1 : stageIndex;
}

export type SkippedApproval = { stage: string; stage_index: number } | { stage: null; stage_index: null };

// The approval a run at `position` went without (approval_required): an approval stage it passed (or succeeded past)
// unapproved, or, once succeeded, the approval its environment needs (required_approval). Null when none is missing.
export function skippedApproval(input: {
  stages: readonly GatedStage[];
  status: string;
  position: number;
  requiredApproval: ApprovalRole | null;
  approvedStages: ReadonlySet<number>;
  approvedByAdmin: boolean;
}): SkippedApproval | null {
  const { stages, status, position, requiredApproval, approvedStages, approvedByAdmin } = input;
  const succeeded = status === 'succeeded';
  if (succeeded || OPEN_RUN_STATUSES.has(status)) {
    const passed = succeeded ? stages.length : Math.min(position - 1, stages.length);
    const skipped = stages.findIndex((s, i) => i < passed && s.approval !== null && !approvedStages.has(i + 1));
    if (skipped >= 0) return { stage: stages[skipped].name, stage_index: skipped + 1 };
  }
  if (
    succeeded &&
    requiredApproval !== null &&
    !(requiredApproval === 'admin' ? approvedByAdmin : approvedStages.size > 0)
  )
    return { stage: null, stage_index: null };
  return null;
}

export type HaltKind = 'awaiting-approval' | 'needs-capability';

export interface RunHalt<S extends GatedStage> {
  kind: HaltKind;
  stage: S;
  position: number;
  missing: string[];
}

// Where an open run halts: at a stage needing approval until it is recorded, else at a stage needing capabilities
// the usher step does not have. Null when it goes on.
export function runHalt<S extends GatedStage>(input: {
  stages: readonly S[];
  status: string;
  position: number;
  approvedStages: ReadonlySet<number>;
  capabilities: readonly string[];
}): RunHalt<S> | null {
  const { stages, status, position, approvedStages } = input;
  if (!OPEN_RUN_STATUSES.has(status) || position < 1 || position > stages.length) return null;
  const stage = stages[position - 1];
  const have = new Set(input.capabilities);
  const missing = stage.capabilities.filter((c) => !have.has(c));
  if (stage.approval !== null && !approvedStages.has(position))
    return { kind: 'awaiting-approval', stage, position, missing: [] };
  if (missing.length > 0) return { kind: 'needs-capability', stage, position, missing };
  return null;
}

export type ApprovalDecision =
  | { allow: true; asAdmin: boolean }
  | { allow: false; code: 'organization_membership_required' | 'admin_approval_required' };

// Who may approve a halted stage: members of the project's organization only (admins when the stage or the
// project's policy says so); for a project of no organization anyone who sees it, and the server admin for admin
// stages.
export function decideApproval(input: {
  isServerAdmin: boolean;
  membership: MembershipStanding;
  stageRole: ApprovalRole | null;
  policyApprovalRole: unknown;
}): ApprovalDecision {
  const { isServerAdmin, membership, stageRole } = input;
  const needsAdmin = stageRole === 'admin' || input.policyApprovalRole === 'admin';
  const asAdmin = membership.organization === null ? isServerAdmin : membership.role === 'admin';
  if (membership.organization !== null && membership.status !== 'active')
    return { allow: false, code: 'organization_membership_required' };
  if (needsAdmin && !asAdmin) return { allow: false, code: 'admin_approval_required' };
  return { allow: true, asAdmin };
}

export function deploymentComplete(runStatus: string, completeBeforeDone: boolean): boolean {
  return runStatus === 'succeeded' || !completeBeforeDone;
}
