export const TERMINAL_STATUSES = ['done', 'cancelled', 'stopped', 'failed'] as const;
export type TerminalStatus = (typeof TERMINAL_STATUSES)[number];

export const ABANDONED_STATUSES = ['cancelled', 'stopped'] as const;

// A blocker in one of these statuses never satisfies a stage it has not literally reached:
// it left the workflow instead of progressing through it.
export const NON_PROGRESSING_STATUSES = ['cancelled', 'stopped', 'failed'] as const;

export const GATE_POINTS = ['activation', 'integration', 'closure', 'coordination_only'] as const;
export type GatePoint = (typeof GATE_POINTS)[number];
export const DEFAULT_GATE_POINT: GatePoint = 'activation';

export const DEPENDENCY_SOURCES = ['shepherd', 'conduct', 'operator', 'migration', 'feed', 'idea', 'refine'] as const;
export type DependencySource = (typeof DEPENDENCY_SOURCES)[number];

export const DEFAULT_SATISFACTION = 'status:done';

export const IMPLEMENTED_SATISFYING_STATUSES = ['implemented', 'release', 'done'] as const;
export const MERGED_SATISFYING_STATUSES = ['release', 'done'] as const;

// Decision: `status:<stage>` is satisfied by the named stage or any later stage of the blocker's pinned
// workflow order (when the caller supplies that order), because a blocker that moved past the stage has
// reached it; cancelled, stopped and failed never count as later. `status:done` stays done-only (spec).
// Without an order only equality (plus the spec's `status:implemented` rule) is provable.
export const STATUS_FORM_ACCEPTS_LATER_STAGES = true;

// Decision: the strict `fact:deployed:<env>` variant (environment still registered for the blocker's
// project) is the default; the variant accepting a run owned by another project is opt-in.
export const DEFAULT_ACCEPT_FOREIGN_RUNS = false;

export type SatisfactionForm =
  { kind: 'status'; stage: string } | { kind: 'merged' } | { kind: 'deployed'; environment: string };

export interface SatisfactionParseError {
  kind: 'invalid';
  raw: string;
  error: string;
}

export type ParsedSatisfaction = SatisfactionForm | SatisfactionParseError;

export interface BlockerFacts {
  // null = the blocker no longer resolves to an item
  status: string | null;
  mergedAt: string | null;
  // environment names of succeeded deployment runs (of any project) whose carried_work lists the blocker
  deployedEnvironments: ReadonlySet<string>;
  registeredEnvironments: ReadonlySet<string>;
  mergedByAncestry?: boolean;
  stageOrder?: readonly string[];
  ref?: string;
  title?: string | null;
  // The blocker sits in another organization than the dependent (an edge made before such edges were refused):
  // it still gates, but its title, status and delivery facts are not told.
  sealed?: boolean;
}

export interface SatisfactionOptions {
  acceptForeignRuns?: boolean;
  stageOrder?: readonly string[];
  blockerRef?: string;
}

export interface SatisfactionResult {
  satisfied: boolean;
  form: ParsedSatisfaction;
  reason: string;
  need: string;
}

const STATUS_PREFIX = 'status:';
const DEPLOYED_PREFIX = 'fact:deployed:';
const MERGED = 'fact:merged';

export const BLOCKER_MISSING_REASON = 'blocker no longer exists';
export const SEALED_BLOCKER = 'an item in another organization';

export function parseSatisfaction(raw: string): ParsedSatisfaction {
  const text = typeof raw === 'string' ? raw.trim() : '';
  if (text === MERGED) {
    return { kind: 'merged' };
  }
  if (text.startsWith(STATUS_PREFIX)) {
    const stage = text.slice(STATUS_PREFIX.length);
    return stage.length > 0 && !/\s/.test(stage)
      ? { kind: 'status', stage }
      : { kind: 'invalid', raw, error: 'status form needs a stage id' };
  }
  if (text.startsWith(DEPLOYED_PREFIX)) {
    const environment = text.slice(DEPLOYED_PREFIX.length);
    return environment.length > 0 && !/\s/.test(environment)
      ? { kind: 'deployed', environment }
      : { kind: 'invalid', raw, error: 'deployed form needs an environment name' };
  }
  return {
    kind: 'invalid',
    raw,
    error: 'expected status:<stage>, fact:merged or fact:deployed:<environment>',
  };
}

export function formatSatisfaction(form: ParsedSatisfaction): string {
  switch (form.kind) {
    case 'status':
      return STATUS_PREFIX + form.stage;
    case 'merged':
      return MERGED;
    case 'deployed':
      return DEPLOYED_PREFIX + form.environment;
    case 'invalid':
      return form.raw;
  }
}

export function isTerminalStatus(status: string | null | undefined): boolean {
  return status === 'done' || status === 'cancelled' || status === 'stopped' || status === 'failed';
}

export function blockingTerminal(status: string | null | undefined): boolean {
  return isTerminalStatus(status);
}

export function blockingAbandoned(status: string | null | undefined): boolean {
  return status === 'cancelled' || status === 'stopped';
}

function isNonProgressing(status: string): boolean {
  return status === 'cancelled' || status === 'stopped' || status === 'failed';
}

const stageIndexCache = new WeakMap<readonly string[], Map<string, number>>();
// Orders are shared by every item of a workflow version, so the last one is usually asked for again.
let lastOrder: readonly string[] | null = null;
let lastIndex: Map<string, number> | null = null;

function stageIndex(order: readonly string[]): Map<string, number> {
  if (order === lastOrder && lastIndex !== null) {
    return lastIndex;
  }
  let index = stageIndexCache.get(order);
  if (!index) {
    index = new Map();
    for (let i = 0; i < order.length; i++) {
      if (!index.has(order[i])) {
        index.set(order[i], i);
      }
    }
    stageIndexCache.set(order, index);
  }
  lastOrder = order;
  lastIndex = index;
  return index;
}

function statusSatisfies(stage: string, status: string, order: readonly string[] | undefined): boolean {
  if (status === stage) {
    return true;
  }
  if (isNonProgressing(status)) {
    return false;
  }
  if (stage === 'implemented' && (status === 'release' || status === 'done')) {
    return true;
  }
  if (order && STATUS_FORM_ACCEPTS_LATER_STAGES && stage !== 'done') {
    const index = stageIndex(order);
    const wanted = index.get(stage);
    const reached = index.get(status);
    return wanted !== undefined && reached !== undefined && reached >= wanted;
  }
  return false;
}

function mergedSatisfied(facts: BlockerFacts): boolean {
  return (
    (facts.mergedAt !== null && facts.mergedAt !== '') ||
    facts.mergedByAncestry === true ||
    facts.status === 'release' ||
    facts.status === 'done'
  );
}

function deployedSatisfied(environment: string, facts: BlockerFacts, acceptForeignRuns: boolean): boolean {
  return (
    facts.deployedEnvironments.has(environment) && (acceptForeignRuns || facts.registeredEnvironments.has(environment))
  );
}

export function isSatisfied(
  form: ParsedSatisfaction,
  facts: BlockerFacts | undefined,
  options: SatisfactionOptions = {},
): boolean {
  if (!facts || facts.status === null) {
    return false;
  }
  switch (form.kind) {
    case 'status':
      return statusSatisfies(form.stage, facts.status, options.stageOrder ?? facts.stageOrder);
    case 'merged':
      return mergedSatisfied(facts);
    case 'deployed':
      return deployedSatisfied(form.environment, facts, options.acceptForeignRuns ?? DEFAULT_ACCEPT_FOREIGN_RUNS);
    case 'invalid':
      return false;
  }
}

function describeStageNeed(stage: string, order: readonly string[] | undefined): string {
  if (stage === 'implemented') {
    return 'implemented, release or done';
  }
  if (order && STATUS_FORM_ACCEPTS_LATER_STAGES && stage !== 'done' && stageIndex(order).has(stage)) {
    return `${stage} or a later stage`;
  }
  return stage;
}

function labelFor(facts: BlockerFacts | undefined, options: SatisfactionOptions): string {
  return options.blockerRef ?? facts?.ref ?? 'blocker';
}

export function satisfactionNeed(
  form: ParsedSatisfaction,
  facts: BlockerFacts | undefined,
  options: SatisfactionOptions = {},
): string {
  const label = labelFor(facts, options);
  if (form.kind === 'invalid') {
    return 'a valid satisfaction form on the dependency';
  }
  if (!facts || facts.status === null) {
    return 'remove the dependency or point it at an existing item';
  }
  if (facts.sealed === true) {
    return `${label} (${SEALED_BLOCKER}) satisfies ${formatSatisfaction(form)}`;
  }
  switch (form.kind) {
    case 'status':
      return `${label} reaches ${describeStageNeed(form.stage, options.stageOrder ?? facts.stageOrder)}`;
    case 'merged':
      return `${label} merged (merged_at set) or in release or done`;
    case 'deployed':
      return (options.acceptForeignRuns ?? DEFAULT_ACCEPT_FOREIGN_RUNS)
        ? `a succeeded deployment run to ${form.environment} carrying ${label}`
        : `a succeeded deployment run to ${form.environment} carrying ${label}, with ${form.environment} registered for its project`;
  }
}

// Why the dependency is (not) satisfied; the frontier calls this alone on its hot path.
export function satisfactionReason(
  form: ParsedSatisfaction,
  facts: BlockerFacts | undefined,
  options: SatisfactionOptions = {},
): string {
  const label = labelFor(facts, options);
  if (form.kind === 'invalid') {
    return `${label}: invalid satisfaction "${form.raw}" (${form.error})`;
  }
  if (!facts || facts.status === null) {
    return label === 'blocker' ? BLOCKER_MISSING_REASON : `${label}: ${BLOCKER_MISSING_REASON}`;
  }
  return label + satisfactionReasonTail(form, facts, options);
}

// The reason after the blocker's label. For an unsatisfied status form or fact:merged it depends only on the
// form, the blocker's status and its stage order, so callers may share it across blockers.
export function satisfactionReasonTail(
  form: SatisfactionForm,
  facts: BlockerFacts,
  options: SatisfactionOptions = {},
): string {
  const status = facts.status as string;
  const satisfied = isSatisfied(form, facts, options);
  if (facts.sealed === true) {
    return ` (${SEALED_BLOCKER}) ${satisfied ? 'satisfies' : 'does not yet satisfy'} ${formatSatisfaction(form)}`;
  }
  switch (form.kind) {
    case 'status': {
      if (satisfied) {
        return ` is ${status}; satisfies ${formatSatisfaction(form)}`;
      }
      const wanted = describeStageNeed(form.stage, options.stageOrder ?? facts.stageOrder);
      const tail = blockingAbandoned(status) ? ' (blocker abandoned; cannot clear)' : '';
      return ` is in ${status}; needs ${wanted}${tail}`;
    }
    case 'merged': {
      if (!satisfied) {
        return ` is in ${status} and not merged; needs a confirmed merge`;
      }
      const how =
        facts.mergedAt !== null && facts.mergedAt !== ''
          ? `merged at ${facts.mergedAt}`
          : facts.mergedByAncestry === true
            ? 'merged (branch ancestry)'
            : `in ${status}`;
      return ` is ${how}; satisfies fact:merged`;
    }
    case 'deployed': {
      const env = form.environment;
      if (satisfied) {
        return ` is deployed to ${env}; satisfies fact:deployed:${env}`;
      }
      if (facts.deployedEnvironments.has(env)) {
        return ` was deployed to ${env}, but ${env} is not registered for its project`;
      }
      return ` has no succeeded deployment to ${env}; needs deployment`;
    }
  }
}

export function evaluateSatisfaction(
  satisfaction: string | ParsedSatisfaction,
  facts: BlockerFacts | undefined,
  options: SatisfactionOptions = {},
): SatisfactionResult {
  const form = typeof satisfaction === 'string' ? parseSatisfaction(satisfaction) : satisfaction;
  return {
    satisfied: isSatisfied(form, facts, options),
    form,
    reason: satisfactionReason(form, facts, options),
    need: satisfactionNeed(form, facts, options),
  };
}
