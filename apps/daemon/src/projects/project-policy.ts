export const DEFAULT_TITLE_MAX_LENGTH = 200;
export const TITLE_MAX_LENGTH_LIMIT = 10_000;
export const WIP_CAP_LIMIT = 100_000;
export const LANE_KEY_PREFIX = 'executor_default_lane_';

const LANE_KEY = /^executor_default_lane_[a-z0-9][a-z0-9._-]{0,62}\*?$|^executor_default_lane_\*$/;
const LANE_VALUE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
const SELECTOR = /^[A-Za-z0-9*][A-Za-z0-9._/:*-]{0,127}$/;

export interface LaneRulePolicy {
  harness?: string;
  model?: string;
  lane: string;
}

// Who approves every approval stage of the project's deployments (docs/api-backlog.md): `admin` makes each an admin
// stage; `member` (the default) leaves each stage's own role.
export const DEPLOYMENT_APPROVAL_ROLES = ['member', 'admin'] as const;
export const DEPLOYMENT_APPROVAL_ROLE_KEY = 'deployment_approval_role';

export interface ProjectPolicy {
  deployment_approval_role?: (typeof DEPLOYMENT_APPROVAL_ROLES)[number];
  wip_cap?: number;
  title_max_length?: number;
  lane_rules?: LaneRulePolicy[];
  [laneKey: `executor_default_lane_${string}`]: string;
}

export interface PolicyProblem {
  field: string;
  problems: string[];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function positiveInt(value: unknown, max: number): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= max;
}

function laneRuleProblems(rule: unknown, field: string): PolicyProblem[] {
  if (!isPlainObject(rule)) return [{ field, problems: ['must be an object {harness?, model?, lane}'] }];
  const problems: PolicyProblem[] = [];
  for (const key of Object.keys(rule)) {
    if (!['harness', 'model', 'lane'].includes(key))
      problems.push({ field: `${field}.${key}`, problems: ['unknown key'] });
  }
  if (typeof rule.lane !== 'string' || !LANE_VALUE.test(rule.lane)) {
    problems.push({ field: `${field}.lane`, problems: ['must be a lane name (letters, digits, . _ -)'] });
  }
  for (const key of ['harness', 'model'] as const) {
    if (rule[key] !== undefined && (typeof rule[key] !== 'string' || !SELECTOR.test(rule[key]))) {
      problems.push({ field: `${field}.${key}`, problems: ['must be a selector such as claude-code or gpt-*'] });
    }
  }
  return problems;
}

// A patch merges into the stored policy: a key set to null is removed. Unknown keys are refused.
export function validatePolicyPatch(patch: unknown): PolicyProblem[] {
  if (!isPlainObject(patch)) return [{ field: 'policy', problems: ['must be a JSON object'] }];
  const problems: PolicyProblem[] = [];
  for (const [key, value] of Object.entries(patch)) {
    const field = `policy.${key}`;
    if (value === null) {
      if (
        key !== 'wip_cap' &&
        key !== 'title_max_length' &&
        key !== 'lane_rules' &&
        key !== DEPLOYMENT_APPROVAL_ROLE_KEY &&
        !LANE_KEY.test(key)
      ) {
        problems.push({ field, problems: ['unknown policy key'] });
      }
      continue;
    }
    if (key === 'wip_cap') {
      if (!positiveInt(value, WIP_CAP_LIMIT))
        problems.push({ field, problems: [`must be an integer 1..${WIP_CAP_LIMIT}`] });
    } else if (key === 'title_max_length') {
      if (!positiveInt(value, TITLE_MAX_LENGTH_LIMIT)) {
        problems.push({ field, problems: [`must be an integer 1..${TITLE_MAX_LENGTH_LIMIT}`] });
      }
    } else if (key === 'lane_rules') {
      if (!Array.isArray(value) || value.length > 100) {
        problems.push({ field, problems: ['must be an array of at most 100 rules'] });
      } else {
        value.forEach((rule, i) => problems.push(...laneRuleProblems(rule, `${field}[${i}]`)));
      }
    } else if (key === DEPLOYMENT_APPROVAL_ROLE_KEY) {
      if (typeof value !== 'string' || !(DEPLOYMENT_APPROVAL_ROLES as readonly string[]).includes(value)) {
        problems.push({ field, problems: [`must be one of ${DEPLOYMENT_APPROVAL_ROLES.join(', ')}`] });
      }
    } else if (LANE_KEY.test(key)) {
      if (typeof value !== 'string' || !LANE_VALUE.test(value))
        problems.push({ field, problems: ['must be a lane name'] });
    } else {
      problems.push({
        field,
        problems: [
          'unknown policy key (wip_cap, title_max_length, lane_rules, deployment_approval_role, executor_default_lane_<token>)',
        ],
      });
    }
  }
  return problems;
}

export function mergePolicy(current: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const next: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}

export function titleMaxLength(policy: Record<string, unknown>): number {
  const value = policy.title_max_length;
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : DEFAULT_TITLE_MAX_LENGTH;
}
