import type { Rule } from '@app/core';

// The census of write paths (issue 36): every route that is not a GET, every MCP tool and the import, with the rules
// it passes (the route's @Writes, checked against this table by test/write-census.e2e-spec.ts) and the record it
// leaves (checked by the authorization matrix: a write it allows leaves change records naming the caller, and no
// write anywhere leaves a record without a writer).
// - change: rows in change_records, naming the actor (the writer of the transaction)
// - event: a stored event naming the actor (a charge decision is telemetry of a read, not a change of state)
// - none: the call changes no row a person cares about (why says what it does instead)
export interface CensusRow {
  rules: readonly Rule[];
  record: 'change' | 'event' | 'none';
  why?: string;
}

const change = (...rules: Rule[]): CensusRow => ({ rules, record: 'change' });

export const WRITE_CENSUS: Record<string, CensusRow> = {
  // ---- the device-code flow and the approval page (anyone may call; rate-limited, validated) ----
  'POST /api/machine/authorizations': change(),
  'POST /api/machine/authorizations/token': change(),
  'POST /api/orgs/:slug/api/machine/authorizations': change(),
  'POST /api/orgs/:slug/api/machine/authorizations/token': change(),
  'POST /machine-approval/session': change(),
  'POST /machine-approval/sign-out': change(),
  'POST /machine-approval/:code/decision': change('scope', 'role'),
  // ---- the hosted forward: the /v1 route it reaches names its own rules and leaves its own record ----
  'POST /api/orgs/:slug/v1/*': change('scope'),
  'POST /api/orgs/:slug/v1/machine-authorizations/requests/:request_id/deny': change('scope', 'role'),
  'POST /api/orgs/:slug/v1/machine-authorizations/requests/:request_id/resolve': change('scope', 'role'),
  'POST /api/orgs/:slug/v1/machine-authorizations/resolve': change('scope', 'role'),
  'POST /v1/machine-authorizations/requests/:request_id/deny': change('scope', 'role'),
  'POST /v1/machine-authorizations/requests/:request_id/resolve': change('scope', 'role'),
  'POST /v1/machine-authorizations/resolve': change('scope', 'role'),
  // ---- MCP over HTTP: a connection is an executor session; its tools' writes go through the routes below ----
  'POST /mcp': change('role'),
  'DELETE /mcp': change('role'),
  // ---- people, organizations, credentials ----
  'POST /v1/actors': change('scope', 'role'),
  'POST /v1/actors/:name/disable': change('scope', 'role'),
  'POST /v1/actors/:name/enable': change('scope', 'role'),
  'POST /v1/members': change('scope', 'role'),
  'POST /v1/members/remove': change('scope', 'role'),
  'POST /v1/orgs': change('role'),
  'POST /v1/tokens': change('scope', 'role'),
  'POST /v1/tokens/:id/revoke': change('scope', 'role'),
  'POST /v1/machines/revoke': change('scope', 'role'),
  'POST /v1/workflows': change('role'),
  // ---- projects and the backlog ----
  'POST /v1/projects': change('scope'),
  'PATCH /v1/projects/:id': change('scope', 'role', 'wip_cap'),
  'POST /v1/import': change('scope', 'role', 'stage_gates', 'approval_stages'),
  'POST /v1/items': change('scope', 'stage_gates'),
  'PUT /v1/items/:ref/fields/:field': change('scope', 'claim', 'stage_gates'),
  'POST /v1/items/:ref/status': change('scope', 'claim', 'stage_gates'),
  'POST /v1/items/:ref/resolve': change('scope', 'claim', 'stage_gates'),
  'PUT /v1/items/:ref/sections/:name': change('scope', 'claim'),
  'DELETE /v1/items/:ref/sections/:name': change('scope', 'claim'),
  'POST /v1/items/:ref/block': change('scope'),
  'POST /v1/items/:ref/unblock': change('scope'),
  'POST /v1/items/:ref/freeze': change('scope'),
  'POST /v1/items/:ref/unfreeze': change('scope'),
  'POST /v1/items/:ref/db-claim': change('scope', 'claim'),
  'POST /v1/items/:ref/db-claim/negative': change('scope', 'claim'),
  'POST /v1/items/:ref/dependencies': change('scope', 'org_edges'),
  'DELETE /v1/items/:ref/dependencies/:blocker': change('scope'),
  // a comment is a note, not a change of the item: the claim rule does not apply (docs/adr/0073)
  'POST /v1/items/:ref/comments': change('scope'),
  'POST /v1/epics/:ref/tasks': change('scope'),
  'PATCH /v1/epics/:ref/tasks/:num': change('scope'),
  'POST /v1/epics/:ref/tasks/:num/dispatch': change('scope'),
  'POST /v1/epics/:ref/tasks/:num/files': change('scope'),
  'PUT /v1/epics/:ref/chains/:worktree': change('scope'),
  'POST /v1/epics/:ref/tasks/:num/notes': change('scope'),
  'POST /v1/records/shepherd-verdicts': change('scope'),
  'POST /v1/records/caveat-dispositions': change('scope'),
  'POST /v1/records/ouroboros': change('scope', 'role'),
  'POST /v1/records/ouroboros/:id/review': change('scope', 'role'),
  'POST /v1/records/ouroboros/:id/archive': change('scope', 'role'),
  // ---- deployments ----
  'POST /v1/deployments/flows': change('scope', 'role'),
  'POST /v1/deployments/environments': change('scope', 'role'),
  'POST /v1/deployments/environments/:project/:name/retire': change('scope', 'role'),
  'POST /v1/deployments/environments/:project/:name/unretire': change('scope', 'role'),
  'POST /v1/deployments/runs': change('scope', 'approval_stages'),
  'PATCH /v1/deployments/runs/:id': change('scope', 'approval_stages'),
  'POST /v1/deployments/runs/:id/resume': change('scope', 'approval_stages'),
  'POST /v1/deployments/approvals': change('scope', 'role', 'approval_stages'),
  // ---- charge, sessions, claims ----
  'POST /v1/charge/dispatch': change('scope', 'role', 'claim', 'wip_cap', 'approval_stages'),
  'POST /v1/charge/decisions': {
    rules: ['scope', 'role'],
    record: 'event',
    why: 'a ChargeDecisionMade event names the actor and session; no row of the backlog changes',
  },
  'POST /v1/sessions': change('scope'),
  'POST /v1/sessions/:id/heartbeat': {
    rules: ['role'],
    record: 'none',
    why: 'renews the session’s leases: who holds what does not change',
  },
  'POST /v1/sessions/:id/release': change('role', 'claim'),
  'POST /v1/sessions/:id/end': change('role'),
  // ---- reads sent as POST (a batch of questions in the body) ----
  'POST /v1/gates/evaluate-batch': { rules: ['scope'], record: 'none', why: 'a read: evaluates gates, writes nothing' },
  'POST /v1/gates/plan': { rules: ['scope'], record: 'none', why: 'a read: plans an order, writes nothing' },
};

// Each MCP tool and the routes it writes through (a read-only tool writes through none). `svc mcp` and /mcp call
// the daemon's HTTP routes with the agent's credential, its session (x-svc-session) and x-svc-client: mcp, so each
// tool passes those routes' rules and leaves their records.
export const MCP_CENSUS: Record<string, readonly string[]> = {
  next_work: [],
  frontier: [],
  explain: [],
  get_item: [],
  claim: ['POST /v1/charge/dispatch', 'POST /v1/charge/decisions', 'POST /v1/sessions/:id/release'],
  release: ['POST /v1/sessions/:id/release'],
  set_status: ['POST /v1/items/:ref/status'],
  create_item: ['POST /v1/items'],
  add_dependency: ['POST /v1/items/:ref/dependencies'],
  add_note: ['POST /v1/records/ouroboros'],
  amend_db_claim: ['POST /v1/items/:ref/db-claim', 'POST /v1/items/:ref/db-claim/negative'],
  list_items: [],
  my_work: [],
  comment: ['POST /v1/items/:ref/comments'],
  update_item: [
    'PUT /v1/items/:ref/fields/:field',
    'PUT /v1/items/:ref/sections/:name',
    'DELETE /v1/items/:ref/sections/:name',
  ],
  // the connection itself: registered, kept alive, ended
  '(session)': ['POST /v1/sessions', 'POST /v1/sessions/:id/heartbeat', 'POST /v1/sessions/:id/end'],
};
