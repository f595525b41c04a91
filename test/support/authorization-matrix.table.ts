import { MatrixRow, sql } from './authorization-matrix';

// One row per route (METHOD path as the Nest router registers it). The fixtures (see the spec): project `alpha`
// (ALP) in `default` with items ALP-1 (a plain item), ALP-2 (an epic with task 1), ALP-3 (an item with a DB
// claim); project `beta` (BET) in `other`; environment `staging` and flow `ship` in alpha with run `RUN`.
const item = 'ALP-1';
const epic = 'ALP-2';

export const MATRIX: Record<string, MatrixRow> = {
  // ---- device-code flow: the machine side needs no credential ----
  'GET /api/machine/authorizations': { access: 'public', request: () => ({ path: '/api/machine/authorizations' }) },
  'POST /api/machine/authorizations': {
    access: 'public',
    request: () => ({ path: '/api/machine/authorizations', body: { machine_id: 'mx-1', machine_name: 'box' } }),
  },
  'POST /api/machine/authorizations/token': {
    access: 'public',
    request: () => ({
      path: '/api/machine/authorizations/token',
      body: { device_code: 'x'.repeat(43), machine_id: 'mx-1', machine_name: 'box' },
    }),
  },
  'GET /api/orgs/:slug/api/machine/authorizations': {
    access: 'public',
    request: () => ({ path: '/api/orgs/default/api/machine/authorizations' }),
  },
  'POST /api/orgs/:slug/api/machine/authorizations': {
    access: 'public',
    request: () => ({
      path: '/api/orgs/default/api/machine/authorizations',
      body: { machine_id: 'mx-1', machine_name: 'box' },
    }),
  },
  'POST /api/orgs/:slug/api/machine/authorizations/token': {
    access: 'public',
    request: () => ({
      path: '/api/orgs/default/api/machine/authorizations/token',
      body: { device_code: 'x'.repeat(43), machine_id: 'mx-1', machine_name: 'box' },
    }),
  },
  // The organization-path forward: checked row by row in hosted mode (every /v1 row again under /api/orgs/default).
  'GET /api/orgs/:slug/v1/*': {
    access: 'org',
    mode: 'hosted',
    request: () => ({ path: '/api/orgs/default/v1/projects/alpha' }),
  },
  'POST /api/orgs/:slug/v1/*': {
    access: 'org',
    mode: 'hosted',
    request: () => ({ path: `/api/orgs/default/v1/items/${item}/block`, body: { reason: 'matrix' } }),
  },
  'GET /api/orgs/:slug/v1/events/stream': {
    access: 'org',
    mode: 'hosted',
    request: () => ({ path: '/api/orgs/default/v1/events/stream' }),
  },
  'GET /api/orgs/:slug/v1/machine-authorizations': {
    access: 'org_admin',
    mode: 'hosted',
    request: () => ({ path: '/api/orgs/default/v1/machine-authorizations' }),
  },
  'GET /api/orgs/:slug/v1/machine-authorizations/:code': {
    access: 'org_admin',
    mode: 'hosted',
    request: async (fx) => ({
      path: `/api/orgs/default/v1/machine-authorizations/${(await fx.fresh.code()).userCode}`,
    }),
  },
  'POST /api/orgs/:slug/v1/machine-authorizations/requests/:request_id/resolve': {
    access: 'org_admin',
    mode: 'hosted',
    request: async (fx) => {
      const code = await fx.fresh.code();
      return {
        path: `/api/orgs/default/v1/machine-authorizations/requests/${code.requestId}/resolve`,
        body: { code: code.userCode, action: 'deny' },
      };
    },
  },
  'POST /api/orgs/:slug/v1/machine-authorizations/requests/:request_id/deny': {
    access: 'org_admin',
    mode: 'hosted',
    request: async (fx) => ({
      path: `/api/orgs/default/v1/machine-authorizations/requests/${(await fx.fresh.code()).requestId}/deny`,
    }),
  },
  'POST /api/orgs/:slug/v1/machine-authorizations/resolve': {
    access: 'org_admin',
    mode: 'hosted',
    request: async (fx) => ({
      path: '/api/orgs/default/v1/machine-authorizations/resolve',
      body: { code: (await fx.fresh.code()).userCode, action: 'deny' },
    }),
  },

  // ---- health and the approval page (their own session, not a bearer) ----
  'GET /healthz': { access: 'public', request: () => ({ path: '/healthz' }) },
  'GET /readyz': { access: 'public', request: () => ({ path: '/readyz' }) },
  'GET /livez': { access: 'public', request: () => ({ path: '/livez' }) },
  // issue 28: Prometheus text and the doctor's report, for server admins only (SVC_METRICS_PORT serves metrics locally);
  // issue 36: 'server_admin' is an unconfined one: not a machine credential (machine_admin), not through /api/orgs
  // issue 40: and a metrics-only token, which every other route refuses (the `metrics` persona)
  'GET /metrics': { access: 'server_admin', metricsScope: true, request: () => ({ path: '/metrics' }) },
  'GET /v1/doctor': { access: 'server_admin', request: () => ({ path: '/v1/doctor' }) },
  'GET /machine-approval': { access: 'public', request: () => ({ path: '/machine-approval' }) },
  'GET /machine-approval/:code': { access: 'public', request: () => ({ path: '/machine-approval/BCDF-GHJK' }) },
  'POST /machine-approval/:code/decision': {
    access: 'public',
    request: () => ({ path: '/machine-approval/BCDF-GHJK/decision', body: { action: 'approve' } }),
  },
  'GET /machine-approval/oidc/callback': {
    access: 'public',
    request: () => ({ path: '/machine-approval/oidc/callback?code=x&state=y' }),
  },
  'GET /machine-approval/oidc/start': { access: 'public', request: () => ({ path: '/machine-approval/oidc/start' }) },
  'POST /machine-approval/session': {
    access: 'public',
    request: () => ({ path: '/machine-approval/session', body: { token: 'svc_not-a-token' } }),
  },
  'POST /machine-approval/sign-out': { access: 'public', request: () => ({ path: '/machine-approval/sign-out' }) },

  // ---- people, organizations, tokens ----
  'GET /v1/whoami': { access: 'self', request: () => ({ path: '/v1/whoami' }) },
  'GET /v1/actors': { access: 'self', request: () => ({ path: '/v1/actors' }) },
  'POST /v1/actors': {
    access: 'org_admin',
    request: async (fx) => ({
      path: '/v1/actors',
      body: { name: `new-${await fx.fresh.actor('none')}`, org: 'default' },
    }),
  },
  'GET /v1/actors/:name': {
    access: 'org_admin',
    request: async (fx) => ({ path: `/v1/actors/${await fx.fresh.actor('default')}` }),
    hiddenLike: () => ({ path: '/v1/actors/nobody-by-this-name' }),
  },
  'POST /v1/actors/:name/disable': {
    access: 'org_admin',
    request: async (fx) => ({ path: `/v1/actors/${await fx.fresh.actor('default')}/disable` }),
  },
  'POST /v1/actors/:name/enable': {
    access: 'org_admin',
    request: async (fx) => ({ path: `/v1/actors/${await fx.fresh.actor('default')}/enable` }),
  },
  'GET /v1/members': { access: 'org', request: () => ({ path: '/v1/members?org=default' }) },
  'POST /v1/members': {
    access: 'org_admin',
    request: async (fx) => ({
      path: '/v1/members',
      body: { actor: await fx.fresh.actor('default'), org: 'default', role: 'admin' },
    }),
  },
  'POST /v1/members/remove': {
    access: 'org_admin',
    request: async (fx) => ({
      path: '/v1/members/remove',
      body: { actor: await fx.fresh.actor('default'), org: 'default' },
    }),
  },
  'GET /v1/orgs': { access: 'self', request: () => ({ path: '/v1/orgs' }) },
  // an unconfined server admin only (issue 36: never one confined to an organization)
  'POST /v1/orgs': {
    access: 'server_admin',
    request: async (fx) => ({
      path: '/v1/orgs',
      body: { slug: (await fx.fresh.actor('none')).replace(/[^a-z0-9-]/g, '') },
    }),
  },
  'GET /v1/orgs/:slug': { access: 'org', request: () => ({ path: '/v1/orgs/default' }) },
  'GET /v1/tokens': { access: 'self', request: () => ({ path: '/v1/tokens' }) },
  'POST /v1/tokens': { access: 'self', request: () => ({ path: '/v1/tokens', body: { name: 'matrix' } }) },
  'POST /v1/tokens/:id/revoke': {
    access: 'self',
    request: async (fx, persona) => ({ path: `/v1/tokens/${await fx.fresh.token(persona)}/revoke` }),
  },
  'GET /v1/machines': { access: 'self', request: () => ({ path: '/v1/machines' }) },
  'POST /v1/machines/revoke': {
    access: 'self',
    request: async (fx, persona) => ({
      path: '/v1/machines/revoke',
      body: { machine_id: await fx.fresh.machine(persona) },
    }),
  },

  // ---- approving machines ----
  'GET /v1/machine-authorizations': { access: 'self', request: () => ({ path: '/v1/machine-authorizations' }) },
  'GET /v1/machine-authorizations/:code': {
    access: 'org',
    hostedAccess: 'org_admin',
    request: async (fx) => ({ path: `/v1/machine-authorizations/${(await fx.fresh.code()).userCode}` }),
  },
  'POST /v1/machine-authorizations/requests/:request_id/resolve': {
    access: 'org',
    hostedAccess: 'org_admin',
    request: async (fx) => {
      const code = await fx.fresh.code();
      return {
        path: `/v1/machine-authorizations/requests/${code.requestId}/resolve`,
        body: { code: code.userCode, action: 'deny' },
      };
    },
  },
  // issue 26: deny a listed request without its code
  'POST /v1/machine-authorizations/requests/:request_id/deny': {
    access: 'org',
    hostedAccess: 'org_admin',
    request: async (fx) => ({
      path: `/v1/machine-authorizations/requests/${(await fx.fresh.code()).requestId}/deny`,
    }),
  },
  'POST /v1/machine-authorizations/resolve': {
    access: 'org',
    hostedAccess: 'org_admin',
    request: async (fx) => ({
      path: '/v1/machine-authorizations/resolve',
      body: { code: (await fx.fresh.code()).userCode, action: 'deny' },
    }),
  },

  // ---- projects and workflows ----
  'GET /v1/projects': { access: 'self', request: () => ({ path: '/v1/projects' }) },
  'POST /v1/projects': {
    access: 'any_member',
    request: async (fx) => {
      const suffix = (await fx.fresh.actor('none')).replace(/[^a-z0-9]/g, '').slice(-8);
      return {
        path: '/v1/projects',
        body: { id: `p${suffix}`, name: 'matrix', public_item_prefix: `M${suffix.toUpperCase()}`.slice(0, 10) },
      };
    },
  },
  'GET /v1/projects/:id': { access: 'org', request: () => ({ path: '/v1/projects/alpha' }) },
  'PATCH /v1/projects/:id': {
    access: 'org',
    request: () => ({ path: '/v1/projects/alpha', body: { name: 'Alpha' } }),
    note: 'changing policy.wip_cap: org_admin (403 wip_cap_policy_forbidden; test/charge-claims.e2e-spec.ts)',
  },
  // issue 36: the project as it was before each import --replace; its organization's admins only
  'GET /v1/projects/:id/snapshots': { access: 'org_admin', request: () => ({ path: '/v1/projects/alpha/snapshots' }) },
  'GET /v1/projects/:id/snapshots/:snapshot': {
    access: 'org_admin',
    request: async (fx) => {
      const [row] = await sql<{ id: string }>(
        fx.dbUrl,
        `INSERT INTO project_snapshots (project, reason, document)
         VALUES ('alpha', 'matrix', '{"format": "svc-backlog/v1"}') RETURNING id::text AS id`,
      );
      return { path: `/v1/projects/alpha/snapshots/${row.id}` };
    },
  },
  'GET /v1/workflows': { access: 'self', request: () => ({ path: '/v1/workflows' }) },
  // workflows are server-wide: an unconfined server admin registers them
  'POST /v1/workflows': { access: 'server_admin', request: () => ({ path: '/v1/workflows', body: { id: 'issue' } }) },
  'GET /v1/workflows/:id/definition': { access: 'self', request: () => ({ path: '/v1/workflows/issue/definition' }) },
  'GET /v1/workflows/:id/versions/:version': {
    access: 'self',
    request: () => ({ path: '/v1/workflows/issue/versions/1' }),
  },

  // ---- items ----
  'GET /v1/items': {
    access: 'org',
    request: () => ({ path: '/v1/items?project=alpha' }),
    hiddenLike: () => ({ path: '/v1/items?project=nowhere' }),
  },
  'POST /v1/items': {
    access: 'org',
    request: () => ({ path: '/v1/items', body: { project: 'alpha', title: 'matrix' } }),
  },
  'GET /v1/items/:ref': { access: 'org', request: () => ({ path: `/v1/items/${item}` }) },
  'POST /v1/items/:ref/block': {
    access: 'org',
    request: () => ({ path: `/v1/items/${item}/block`, body: { reason: 'matrix' } }),
  },
  'POST /v1/items/:ref/unblock': { access: 'org', request: () => ({ path: `/v1/items/${item}/unblock` }) },
  'POST /v1/items/:ref/freeze': {
    access: 'org',
    request: () => ({ path: `/v1/items/${item}/freeze`, body: { reason: 'matrix' } }),
  },
  'POST /v1/items/:ref/unfreeze': { access: 'org', request: () => ({ path: `/v1/items/${item}/unfreeze` }) },
  'GET /v1/items/:ref/db-claim': { access: 'org', request: () => ({ path: `/v1/items/${item}/db-claim` }) },
  'POST /v1/items/:ref/db-claim': {
    access: 'org',
    request: () => ({ path: `/v1/items/${item}/db-claim`, body: { state: 'none' } }),
  },
  'POST /v1/items/:ref/db-claim/negative': {
    access: 'org',
    request: () => ({ path: `/v1/items/${item}/db-claim/negative`, body: { reason: 'matrix' } }),
  },
  'GET /v1/items/:ref/dependencies': { access: 'org', request: () => ({ path: `/v1/items/${item}/dependencies` }) },
  'POST /v1/items/:ref/dependencies': {
    access: 'org',
    request: async (fx) => ({ path: `/v1/items/${item}/dependencies`, body: { blocker: await fx.fresh.item() } }),
  },
  'DELETE /v1/items/:ref/dependencies/:blocker': {
    access: 'org',
    request: async (fx) => ({ path: `/v1/items/${item}/dependencies/${await fx.fresh.blocker(item)}` }),
  },
  'GET /v1/items/:ref/fields/:field': { access: 'org', request: () => ({ path: `/v1/items/${item}/fields/title` }) },
  'PUT /v1/items/:ref/fields/:field': {
    access: 'org',
    request: () => ({ path: `/v1/items/${item}/fields/title`, body: { value: 'matrix title' } }),
  },
  'GET /v1/items/:ref/progress': { access: 'org', request: () => ({ path: `/v1/items/${item}/progress` }) },
  'GET /v1/items/:ref/history': { access: 'org', request: () => ({ path: `/v1/items/${item}/history` }) },
  'GET /v1/items/:ref/comments': { access: 'org', request: () => ({ path: `/v1/items/${item}/comments` }) },
  'POST /v1/items/:ref/comments': {
    access: 'org',
    request: () => ({ path: `/v1/items/${item}/comments`, body: { body: 'matrix comment' } }),
  },
  // everyone reads the changes of what they may see (a filter: an outsider gets an empty or shorter log)
  'GET /v1/history': { access: 'self', request: () => ({ path: '/v1/history?limit=1' }) },
  'POST /v1/items/:ref/resolve': {
    access: 'org',
    request: async (fx) => ({ path: `/v1/items/${await fx.fresh.item()}/resolve`, body: { resolution: 'wontfix' } }),
  },
  'PUT /v1/items/:ref/sections/:name': {
    access: 'org',
    request: () => ({ path: `/v1/items/${item}/sections/notes`, body: { content: 'matrix' } }),
  },
  'DELETE /v1/items/:ref/sections/:name': {
    access: 'org',
    request: async (fx) => ({ path: `/v1/items/${item}/sections/${await fx.fresh.section(item)}` }),
  },
  'POST /v1/items/:ref/status': {
    access: 'org',
    request: () => ({ path: `/v1/items/${item}/status`, body: { status: 'idea' } }),
  },
  'GET /v1/items/:ref/workflow': { access: 'org', request: () => ({ path: `/v1/items/${item}/workflow` }) },

  // ---- epics ----
  'GET /v1/epics/:ref': { access: 'org', request: () => ({ path: `/v1/epics/${epic}` }) },
  'GET /v1/epics/:ref/chains': { access: 'org', request: () => ({ path: `/v1/epics/${epic}/chains` }) },
  'PUT /v1/epics/:ref/chains/:worktree': {
    access: 'org',
    request: () => ({ path: `/v1/epics/${epic}/chains/main`, body: { queue: [1] } }),
  },
  'GET /v1/epics/:ref/files': { access: 'org', request: () => ({ path: `/v1/epics/${epic}/files` }) },
  'GET /v1/epics/:ref/notes': { access: 'org', request: () => ({ path: `/v1/epics/${epic}/notes` }) },
  'GET /v1/epics/:ref/tasks': { access: 'org', request: () => ({ path: `/v1/epics/${epic}/tasks` }) },
  'POST /v1/epics/:ref/tasks': {
    access: 'org',
    request: () => ({ path: `/v1/epics/${epic}/tasks`, body: { title: 'matrix' } }),
  },
  'GET /v1/epics/:ref/tasks/:num': { access: 'org', request: () => ({ path: `/v1/epics/${epic}/tasks/1` }) },
  'PATCH /v1/epics/:ref/tasks/:num': {
    access: 'org',
    request: () => ({ path: `/v1/epics/${epic}/tasks/1`, body: { heartbeat: true } }),
  },
  'POST /v1/epics/:ref/tasks/:num/dispatch': {
    access: 'org',
    request: () => ({ path: `/v1/epics/${epic}/tasks/1/dispatch` }),
  },
  'POST /v1/epics/:ref/tasks/:num/files': {
    access: 'org',
    request: () => ({ path: `/v1/epics/${epic}/tasks/1/files`, body: { file_path: 'src/a.ts' } }),
  },
  'POST /v1/epics/:ref/tasks/:num/notes': {
    access: 'org',
    request: () => ({ path: `/v1/epics/${epic}/tasks/1/notes`, body: { body: 'matrix' } }),
  },

  // ---- the frontier, charge, gates ----
  'GET /v1/charge/frontier': { access: 'org', request: () => ({ path: '/v1/charge/frontier?project=alpha' }) },
  'GET /v1/charge/frontier/window': {
    access: 'org',
    request: () => ({ path: '/v1/charge/frontier/window?project=alpha&list=blocked&limit=5' }),
  },
  'GET /v1/charge/schedule': {
    access: 'org',
    request: () => ({ path: '/v1/charge/schedule?project=alpha' }),
    note: "a wip_cap above the policy's: org_admin (403 wip_cap_override_forbidden; test/charge-claims.e2e-spec.ts)",
  },
  'GET /v1/charge/claims': { access: 'org', request: () => ({ path: '/v1/charge/claims?project=alpha' }) },
  'POST /v1/charge/dispatch': {
    access: 'org',
    request: async (fx, persona) => ({
      path: '/v1/charge/dispatch',
      body: { project: 'alpha', item_id: item, session_id: await fx.fresh.session(persona) },
    }),
    note: "a wip_cap above the policy's: org_admin (403 wip_cap_override_forbidden; test/charge-claims.e2e-spec.ts)",
  },
  'POST /v1/charge/decisions': {
    access: 'org',
    request: () => ({
      path: '/v1/charge/decisions',
      body: { project: 'alpha', reason: 'operator_cancelled', item_id: item },
    }),
  },
  'GET /v1/frontier/explain/:ref': { access: 'org', request: () => ({ path: `/v1/frontier/explain/${item}` }) },
  'GET /v1/frontier/list': { access: 'org', request: () => ({ path: '/v1/frontier/list?project=alpha' }) },
  'GET /v1/gates/evaluate': {
    access: 'org',
    request: () => ({ path: `/v1/gates/evaluate?item=${item}&gate_point=activation` }),
  },
  'POST /v1/gates/evaluate-batch': {
    access: 'org',
    request: () => ({ path: '/v1/gates/evaluate-batch', body: { gate_point: 'activation', items: [item] } }),
  },
  'POST /v1/gates/plan': {
    access: 'org',
    request: () => ({ path: '/v1/gates/plan', body: { gate_point: 'activation', items: [item] } }),
  },

  // ---- deployments ----
  'GET /v1/deployments/environments': {
    access: 'org',
    request: () => ({ path: '/v1/deployments/environments?project=alpha' }),
  },
  'POST /v1/deployments/environments': {
    access: 'org',
    request: async (fx) => ({
      path: '/v1/deployments/environments',
      body: { project: 'alpha', name: `env-${(await fx.fresh.actor('none')).slice(-6)}` },
    }),
  },
  // issue 36: retiring and un-retiring are an admin's acts
  'POST /v1/deployments/environments/:project/:name/retire': {
    access: 'org_admin',
    request: () => ({ path: '/v1/deployments/environments/alpha/scratch/retire' }),
  },
  'POST /v1/deployments/environments/:project/:name/unretire': {
    access: 'org_admin',
    request: () => ({ path: '/v1/deployments/environments/alpha/scratch/unretire' }),
  },
  'GET /v1/deployments/flows': { access: 'org', request: () => ({ path: '/v1/deployments/flows?project=alpha' }) },
  'POST /v1/deployments/flows': {
    access: 'org',
    request: async (fx) => ({
      path: '/v1/deployments/flows',
      body: {
        id: `f-${(await fx.fresh.actor('none')).slice(-6)}`,
        project: 'alpha',
        name: 'matrix',
        stages: ['build'],
      },
    }),
  },
  'GET /v1/deployments/runs': { access: 'org', request: () => ({ path: '/v1/deployments/runs?project=alpha' }) },
  'POST /v1/deployments/runs': {
    access: 'org',
    request: () => ({ path: '/v1/deployments/runs', body: { project: 'alpha', environment: 'scratch', items: [] } }),
  },
  'PATCH /v1/deployments/runs/:id': {
    access: 'org',
    request: (fx) => ({ path: `/v1/deployments/runs/${fx.runId}`, body: { qa_summary: 'matrix' } }),
  },
  'POST /v1/deployments/runs/:id/resume': {
    access: 'org',
    request: (fx) => ({ path: `/v1/deployments/runs/${fx.runId}/resume` }),
  },
  'POST /v1/deployments/approvals': {
    access: 'org',
    request: () => ({ path: '/v1/deployments/approvals', body: { item } }),
  },

  // ---- records, events, sessions, transfer ----
  'GET /v1/records/shepherd-verdicts': {
    access: 'org',
    request: () => ({ path: `/v1/records/shepherd-verdicts?item=${item}` }),
  },
  'POST /v1/records/shepherd-verdicts': {
    access: 'org',
    request: () => ({
      path: '/v1/records/shepherd-verdicts',
      body: { item, transition: 'implementing', worker: 'w', verdict: 'pass' },
    }),
  },
  'GET /v1/records/caveat-dispositions': {
    access: 'org',
    request: () => ({ path: `/v1/records/caveat-dispositions?item=${item}` }),
  },
  'POST /v1/records/caveat-dispositions': {
    access: 'org',
    request: async (fx) => ({
      path: '/v1/records/caveat-dispositions',
      body: {
        item,
        transition: 'implementing',
        caveat_num: 1 + ((await fx.fresh.token('none')) % 9000),
        caveat_text: 'c',
        disposition: 'RESOLVED',
      },
    }),
  },
  // Ouroboros entries belong to an organization (the fixture's `seed` entry: `default`'s): listed and marked by its
  // active members and credentials and server admins; written by anyone with an active membership, into the
  // organization they act in. A list answers others exactly as it answers a filter nothing matches.
  'GET /v1/records/ouroboros': {
    access: 'org',
    request: () => ({ path: '/v1/records/ouroboros?category=seed' }),
    hiddenLike: () => ({ path: '/v1/records/ouroboros?category=nowhere' }),
  },
  'POST /v1/records/ouroboros': {
    access: 'any_member',
    request: () => ({ path: '/v1/records/ouroboros', body: { agent: 'a', category: 'note', body: 'matrix' } }),
  },
  'POST /v1/records/ouroboros/:id/review': {
    access: 'org',
    request: (fx) => ({ path: `/v1/records/ouroboros/${fx.ouroborosId}/review` }),
  },
  'POST /v1/records/ouroboros/:id/archive': {
    access: 'org',
    request: (fx) => ({ path: `/v1/records/ouroboros/${fx.ouroborosId}/archive` }),
  },
  'GET /v1/events': { access: 'self', request: () => ({ path: '/v1/events?limit=1' }) },
  'GET /v1/events/stream': {
    access: 'any_member',
    request: () => ({ path: '/v1/events/stream' }),
    note: 'opened and closed',
  },
  'GET /v1/sessions': { access: 'self', request: () => ({ path: '/v1/sessions' }) },
  'POST /v1/sessions': {
    access: 'self',
    request: () => ({ path: '/v1/sessions', body: { harness: 'claude-code', model: 'opus-4' } }),
  },
  'GET /v1/sessions/:id': {
    access: 'self',
    request: (fx, persona) => ({ path: `/v1/sessions/${fx.sessionIds[persona]}` }),
  },
  'GET /v1/sessions/:id/notices': {
    access: 'self',
    request: (fx, persona) => ({ path: `/v1/sessions/${fx.sessionIds[persona]}/notices` }),
  },
  'POST /v1/sessions/:id/heartbeat': {
    access: 'self',
    request: (fx, persona) => ({ path: `/v1/sessions/${fx.sessionIds[persona]}/heartbeat` }),
  },
  // The caller's own session, and an item of `default`'s project (one it cannot see answers item_not_found).
  'POST /v1/sessions/:id/release': {
    access: 'org',
    request: (fx, persona) => ({ path: `/v1/sessions/${fx.sessionIds[persona]}/release`, body: { item_id: item } }),
  },
  'POST /v1/sessions/:id/end': {
    access: 'self',
    request: (fx, persona) => ({ path: `/v1/sessions/${fx.sessionIds[persona]}/end` }),
  },
  // The MCP server over Streamable HTTP (issue 29): any live credential; every tool then calls the API as its caller.
  'POST /mcp': {
    access: 'self',
    request: () => ({ path: '/mcp', body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} } }),
  },
  'GET /mcp': { access: 'self', request: () => ({ path: '/mcp' }) },
  // issue 37: RFC 9728 protected-resource metadata, read before a client has a credential
  'GET /.well-known/oauth-protected-resource': {
    access: 'public',
    request: () => ({ path: '/.well-known/oauth-protected-resource' }),
  },
  'GET /.well-known/oauth-protected-resource/mcp': {
    access: 'public',
    request: () => ({ path: '/.well-known/oauth-protected-resource/mcp' }),
  },
  'DELETE /mcp': { access: 'self', request: () => ({ path: '/mcp' }) },
  'GET /v1/export': { access: 'org', request: () => ({ path: '/v1/export?project=alpha' }) },
  // into a new project (replacing one that holds anything is its organization's admins' act: backlog-transfer spec)
  'POST /v1/import': {
    access: 'any_member',
    request: async (fx) => {
      const suffix = (await fx.fresh.actor('none')).replace(/[^a-z0-9]/g, '').slice(-8);
      return {
        path: '/v1/import',
        body: {
          format: 'svc-backlog/v1',
          project: { id: `i${suffix}`, name: 'imported', public_item_prefix: `I${suffix.toUpperCase()}`.slice(0, 10) },
          items: [],
        },
      };
    },
  },
};
