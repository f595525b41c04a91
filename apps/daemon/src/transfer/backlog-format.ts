import Ajv, { ErrorObject, ValidateFunction } from 'ajv';

import { CONTEXT_ESTIMATES, EPIC_TASK_STATUSES, FILE_ACTIONS } from '@app/contracts';
import { DEPENDENCY_SOURCES, GATE_POINTS, PRIORITIES, RESOLUTIONS, STRUCTURED_FIELDS } from '@app/contracts/backlog';

import { RUN_STATUSES } from '../deployments/dto/deployments.dto';

export const BACKLOG_FORMAT = 'svc-backlog/v1';

type Schema = Record<string, unknown>;

const str = (maxLength = 100_000): Schema => ({ type: 'string', maxLength });
const nstr = (maxLength = 512 * 1024): Schema => ({ type: ['string', 'null'], maxLength });
const int = (minimum = 0, maximum = 1_000_000_000): Schema => ({ type: 'integer', minimum, maximum });
const ts: Schema = {
  type: 'string',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,6})?(Z|[+-]\\d{2}:\\d{2})$',
};
const nts: Schema = { anyOf: [ts, { type: 'null' }] };
const ref: Schema = { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9]{0,15}-[0-9]{1,9}$' };
const oneOf = (values: readonly string[]): Schema => ({ type: 'string', enum: [...values] });
const nOneOf = (values: readonly string[]): Schema => ({ enum: [...values, null] });
const object = (properties: Record<string, Schema>, required: string[] = []): Schema => ({
  type: 'object',
  additionalProperties: false,
  properties,
  required,
});
const array = (items: Schema, maxItems = 100_000): Schema => ({ type: 'array', items, maxItems });

const section = object(
  { section_name: str(100), content: nstr(), ordering: int(-1_000_000, 1_000_000), created_at: ts, updated_at: ts },
  ['section_name'],
);

const item = object(
  {
    ref,
    title: str(10_000),
    workflow_id: str(63),
    workflow_version: int(1),
    workflow_posture: str(),
    status: str(63),
    priority: oneOf(PRIORITIES),
    frozen: { enum: [0, 1] },
    blocked: { enum: [0, 1] },
    blocked_reason: nstr(2000),
    github_issue: nstr(500),
    deployed_to: nstr(500),
    body: nstr(),
    merged_at: nts,
    created_at: ts,
    updated_at: ts,
    source: str(100),
    owner: nstr(100),
    deployment_flow: nstr(100),
    deploy_stage: nstr(100),
    ...Object.fromEntries(STRUCTURED_FIELDS.map((f) => [f, nstr()])),
    db_mutation_profile: str(),
    db_compatibility_attestation: str(),
    spec_updated_at: nts,
    spec_updated_by: nstr(100),
    resolution: nOneOf(RESOLUTIONS),
    resolution_ref: { anyOf: [ref, { type: 'null' }] },
    resolution_comment: nstr(10_000),
    depends_on: nstr(10_000),
    sections: array(section, 1000),
  },
  ['ref', 'title'],
);

const dependency = object(
  {
    dependent: ref,
    blocker: ref,
    gate_point: oneOf(GATE_POINTS),
    satisfaction: str(200),
    source: oneOf(DEPENDENCY_SOURCES),
    session_id: { type: ['integer', 'null'], minimum: 1 },
    rationale: str(10_000),
    evidence: { type: 'object' },
    evidence_json: str(64 * 1024),
    created_at: ts,
  },
  ['dependent', 'blocker'],
);

const task = object(
  {
    task_num: int(1),
    title: nstr(10_000),
    worktree: nstr(500),
    context_estimate: nOneOf(CONTEXT_ESTIMATES),
    dependencies: array(int(1), 500),
    status: oneOf(EPIC_TASK_STATUSES),
    dispatch_attempts: int(0, 1000),
    max_attempts: int(1, 100),
    body: nstr(),
    github_issue: nstr(500),
    branch: nstr(500),
    worktree_path: nstr(1000),
    agent_id: nstr(200),
    last_heartbeat: nts,
  },
  ['task_num'],
);

const epic = object(
  {
    epic: ref,
    tasks: array(task, 1000),
    files: array(
      object({ task_num: int(1), file_path: str(1000), action: nOneOf(FILE_ACTIONS) }, ['task_num', 'file_path']),
    ),
    chains: array(
      object(
        {
          worktree: str(500),
          worktree_path: nstr(1000),
          queue: array(int(1), 500),
          current_index: int(0),
          current_task: nstr(100),
          current_attempt: int(1, 1000),
          max_attempts: int(1, 100),
          no_chain: { enum: [0, 1] },
          started_at: nts,
          last_updated: nts,
        },
        ['worktree'],
      ),
    ),
    notes: array(
      object({ task_num: int(1), note_num: int(1), body: str(), author: nstr(200), created_at: ts }, [
        'task_num',
        'note_num',
        'body',
      ]),
    ),
  },
  ['epic'],
);

const workflow = object(
  {
    id: str(63),
    name: str(200),
    versions: array(object({ version: int(1), definition: { type: 'object' } }, ['version', 'definition']), 1000),
  },
  ['id', 'versions'],
);

export const BACKLOG_SCHEMA: Schema = object(
  {
    format: { const: BACKLOG_FORMAT },
    project: object(
      {
        id: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,62}$' },
        name: str(200),
        public_item_prefix: { type: 'string', pattern: '^[A-Z][A-Z0-9]{0,15}$' },
        next_sequence: int(1),
        policy: { type: 'object' },
      },
      ['id', 'public_item_prefix'],
    ),
    workflows: array(workflow, 100),
    items: array(item),
    dependencies: array(dependency),
    epics: array(epic, 10_000),
    records: object({
      shepherd_verdicts: array(
        object(
          {
            key: int(1),
            item: ref,
            transition: str(200),
            worker: str(200),
            verdict: str(100),
            caveats: nstr(),
            attempt: int(1, 1000),
            created_at: ts,
          },
          ['item', 'transition', 'worker', 'verdict'],
        ),
      ),
      caveat_dispositions: array(
        object(
          {
            item: ref,
            transition: str(200),
            attempt: int(1, 1000),
            caveat_num: int(1, 10_000),
            caveat_text: str(),
            disposition: oneOf(['RESOLVED', 'DEFERRED']),
            resolution_details: nstr(),
            verdict_key: { type: ['integer', 'null'], minimum: 1 },
            created_at: ts,
          },
          ['item', 'transition', 'caveat_num', 'caveat_text', 'disposition'],
        ),
      ),
    }),
    deployments: object({
      flows: array(
        object(
          {
            id: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$' },
            name: str(200),
            stages: { type: 'array', maxItems: 100, items: { type: ['string', 'object'] } },
            target_tier: nstr(100),
            done_description: nstr(2000),
            active: { type: 'boolean' },
            closing: { type: 'boolean' },
            complete_before_done: { type: 'boolean' },
            created_at: ts,
          },
          ['id', 'name'],
        ),
      ),
      environments: array(
        object(
          {
            name: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$' },
            tier: nstr(100),
            flow_id: nstr(100),
            created_at: ts,
            retired_at: nts,
          },
          ['name'],
        ),
      ),
      runs: array(
        object(
          {
            id: str(100),
            flow_id: nstr(100),
            environment: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$' },
            status: oneOf(RUN_STATUSES),
            current_stage: nstr(100),
            stage_index: int(0, 1000),
            stage_count: int(0, 1000),
            items: array(ref, 5000),
            qa_summary: nstr(10_000),
            blocked_reason: nstr(2000),
            started_at: ts,
            finished_at: nts,
            // an import counts only the approvals this server recorded
            approvals: array(
              object(
                {
                  stage_index: int(1, 1000),
                  stage: str(100),
                  item: { anyOf: [ref, { type: 'null' }] },
                  approved_by: nstr(200),
                  approver_role: oneOf(['member', 'admin']),
                  approved_at: ts,
                },
                ['stage_index', 'stage', 'approver_role', 'approved_at'],
              ),
              100,
            ),
          },
          ['environment', 'items'],
        ),
      ),
    }),
  },
  ['format', 'project'],
);

// Compiled on the first import, not at start-up: compiling it was a fifth of the daemon's boot.
let validate: ValidateFunction | null = null;

export interface FormatProblem {
  field: string;
  problems: string[];
}

function describe(error: ErrorObject): FormatProblem {
  const at = error.instancePath.replace(/^\//, '').replace(/\//g, '.') || '(document)';
  if (error.keyword === 'additionalProperties') {
    const key = (error.params as { additionalProperty: string }).additionalProperty;
    return { field: at === '(document)' ? key : `${at}.${key}`, problems: ['unknown key'] };
  }
  if (error.keyword === 'required') {
    const key = (error.params as { missingProperty: string }).missingProperty;
    return { field: at === '(document)' ? key : `${at}.${key}`, problems: ['is required'] };
  }
  return { field: at, problems: [error.message ?? 'is invalid'] };
}

// At most 50 problems are reported, so a huge bad file answers with a bounded body.
export function validateBacklogDocument(document: unknown): FormatProblem[] {
  validate ??= new Ajv({ allErrors: true, strict: false }).compile(BACKLOG_SCHEMA);
  if (validate(document)) return [];
  return (validate.errors ?? []).slice(0, 50).map(describe);
}
