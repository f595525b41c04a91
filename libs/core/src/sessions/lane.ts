export const DEFAULT_LANE = 'primary';
export const LANE_KEY_PREFIX = 'executor_default_lane_';
export const UNKNOWN_HARNESS_TOKEN = 'unknown';

export interface ExecutorIdentity {
  harness: string | null | undefined;
  model: string | null | undefined;
}

export interface LaneRule {
  harness?: string;
  model?: string;
  lane: string;
}

// The project's session-routing capability, or the machine configuration: lane_rules plus
// executor_default_lane_<token> and executor_default_lane_<prefix>* keys. Read defensively (stored JSON).
export type LanePolicy = Readonly<Record<string, unknown>>;

export type LaneSource = 'lane_rule' | 'harness_exact' | 'harness_prefix' | 'harness_unknown' | 'default';

export interface LaneResolution {
  lane: string;
  source: LaneSource;
  scope: 'project' | 'machine' | 'builtin';
  key: string | null;
}

function normalise(value: string | null | undefined): string | null {
  if (typeof value !== 'string') {
    return null;
  }
  const trimmed = value.trim().toLowerCase();
  return trimmed.length > 0 ? trimmed : null;
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}

// Exact match, or a glob with one trailing `*` (prefix match); `*` alone also matches an absent value.
export function matchesSelector(pattern: string, value: string | null): boolean {
  const wanted = pattern.trim().toLowerCase();
  if (wanted === '*') {
    return true;
  }
  if (value === null) {
    return false;
  }
  return wanted.endsWith('*') ? value.startsWith(wanted.slice(0, -1)) : value === wanted;
}

function ruleMatches(rule: Record<string, unknown>, harness: string | null, model: string | null): boolean {
  if (rule.harness !== undefined && (typeof rule.harness !== 'string' || !matchesSelector(rule.harness, harness))) {
    return false;
  }
  if (rule.model !== undefined && (typeof rule.model !== 'string' || !matchesSelector(rule.model, model))) {
    return false;
  }
  return true;
}

export function resolveLaneFromPolicy(
  identity: ExecutorIdentity,
  policy: LanePolicy,
): Omit<LaneResolution, 'scope'> | null {
  const harness = normalise(identity.harness);
  const model = normalise(identity.model);

  const rules = policy.lane_rules;
  if (Array.isArray(rules)) {
    for (let i = 0; i < rules.length; i++) {
      const rule: unknown = rules[i];
      if (typeof rule !== 'object' || rule === null || !nonEmptyString((rule as Record<string, unknown>).lane)) {
        continue;
      }
      if (ruleMatches(rule as Record<string, unknown>, harness, model)) {
        return {
          lane: ((rule as Record<string, unknown>).lane as string).trim(),
          source: 'lane_rule',
          key: `lane_rules[${i}]`,
        };
      }
    }
  }

  const token = harness ?? UNKNOWN_HARNESS_TOKEN;
  const exactKey = LANE_KEY_PREFIX + token;
  const exact = policy[exactKey];
  if (nonEmptyString(exact)) {
    return { lane: exact.trim(), source: 'harness_exact', key: exactKey };
  }

  let bestKey: string | null = null;
  let bestLength = -1;
  for (const key of Object.keys(policy)) {
    if (!key.startsWith(LANE_KEY_PREFIX) || !key.endsWith('*') || !nonEmptyString(policy[key])) {
      continue;
    }
    const prefix = key.slice(LANE_KEY_PREFIX.length, -1).toLowerCase();
    if (token.startsWith(prefix) && prefix.length > bestLength) {
      bestKey = key;
      bestLength = prefix.length;
    }
  }
  if (bestKey !== null) {
    return { lane: (policy[bestKey] as string).trim(), source: 'harness_prefix', key: bestKey };
  }

  const unknownKey = LANE_KEY_PREFIX + UNKNOWN_HARNESS_TOKEN;
  const unknown = policy[unknownKey];
  if (nonEmptyString(unknown)) {
    return { lane: unknown.trim(), source: 'harness_unknown', key: unknownKey };
  }
  return null;
}

// With a project only its session-routing policy counts (then `primary`); the machine configuration is the
// fallback only when there is no project.
export function resolveLane(
  identity: ExecutorIdentity,
  projectPolicy: LanePolicy | null,
  machineConfig: LanePolicy | null,
): LaneResolution {
  const policy = projectPolicy ?? machineConfig;
  const scope = projectPolicy ? 'project' : 'machine';
  const resolved = policy ? resolveLaneFromPolicy(identity, policy) : null;
  if (resolved) {
    return { ...resolved, scope };
  }
  return { lane: DEFAULT_LANE, source: 'default', scope: 'builtin', key: null };
}
