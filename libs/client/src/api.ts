import type {
  ChargeDecisionDetail,
  ChargeDecisionResponse,
  ClaimsResponse,
  DispatchResponse,
  EpicTasksResponse,
  EventsListResponse,
  ExplainResponse,
  FrontierListResponse,
  FrontierResultWire,
  ImportResponse,
  ItemResponse,
  MachineAuthorizationRecord,
  MachineAuthorizationRequestList,
  MachineAuthorizationRequestResolveBody,
  MachineAuthorizationResolveResponse,
  ProjectListResponse,
  RegisterSessionResponse,
  ScheduleResponse,
  WhoAmIResponse,
} from '@app/contracts';

import { Query, SvcClient, SvcHttpError } from './http-client';

export type FrontierRead =
  { notModified: true } | { notModified: false; body: FrontierResultWire; etag: string | null };

export interface FrontierListQuery {
  project: string;
  wip_cap?: number | string;
  gate_point?: string;
  blocker?: string;
  dependent?: string;
  only?: string;
  adapter?: string;
  priority?: string;
  abandoned?: boolean;
}

export interface EventsQuery {
  project?: string;
  event_name?: string;
  item?: string;
  since?: string;
  limit?: number | string;
}

export interface RegisterSessionBody {
  harness: string;
  model: string;
  project?: string;
  label?: string;
  lane?: string;
}

// Path segments are encoded here once; callers pass refs and ids as the user typed them.
export const seg = (value: string | number): string => encodeURIComponent(String(value));

function header(headers: Record<string, string | string[] | undefined>, name: string): string | null {
  const value = headers[name];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

// Typed endpoint functions of the daemon: one per route the CLI and the TUI call. Nothing outside libs/client
// spells a route.
// The answer of POST /v1/deployments/approvals.
export interface DeploymentApproval {
  item_id: string;
  run_id: string;
  environment: string;
  stage: string;
  stage_index: number;
  approved_by: string;
  approved_at: string;
  event_id: string;
  run: Record<string, unknown>;
}

export class SvcApi {
  constructor(readonly http: SvcClient) {}

  get baseUrl(): string {
    return this.http.baseUrl;
  }

  // GET /readyz: { ok: false } on 503 (starting, database away); SvcConnectionError when nobody answers.
  async ready(): Promise<{ ok: boolean }> {
    const res = await this.http.raw('GET', 'readyz');
    return { ok: res.status === 200 };
  }

  whoami(): Promise<WhoAmIResponse> {
    return this.http.get('v1/whoami');
  }

  // ---- projects
  projects(): Promise<ProjectListResponse> {
    return this.http.get('v1/projects');
  }

  // ---- frontier and charge
  // Conditional read: sends If-None-Match when an etag is given; 304 answers { notModified: true }.
  async frontier(q: { project: string; wip_cap?: number | string }, etag?: string | null): Promise<FrontierRead> {
    const res = await this.http.raw('GET', 'v1/charge/frontier', {
      query: q as Query,
      headers: etag ? { 'if-none-match': etag } : {},
    });
    if (res.status === 304) return { notModified: true };
    const body = this.http.parse<FrontierResultWire>(res);
    return { notModified: false, body, etag: header(res.headers, 'etag') };
  }

  frontierList(q: FrontierListQuery): Promise<FrontierListResponse> {
    return this.http.get('v1/frontier/list', { ...q, abandoned: q.abandoned ? 'true' : undefined } as Query);
  }

  explain(ref: string, q: { wip_cap?: number | string } = {}): Promise<ExplainResponse> {
    return this.http.get(`v1/frontier/explain/${seg(ref)}`, q as Query);
  }

  schedule(q: {
    project?: string;
    session_id?: number | string;
    wip_cap?: number | string;
  }): Promise<ScheduleResponse> {
    return this.http.get('v1/charge/schedule', q as Query);
  }

  dispatch(body: { session_id: number; item_id: string; wip_cap?: number }): Promise<DispatchResponse> {
    return this.http.post('v1/charge/dispatch', body);
  }

  recordDecision(body: ChargeDecisionDetail & { session_id?: number }): Promise<ChargeDecisionResponse> {
    return this.http.post('v1/charge/decisions', body);
  }

  claims(project: string): Promise<ClaimsResponse> {
    return this.http.get('v1/charge/claims', { project });
  }

  // ---- sessions
  registerSession(body: RegisterSessionBody): Promise<RegisterSessionResponse> {
    return this.http.post('v1/sessions', body);
  }

  // ---- events
  events(q: EventsQuery = {}): Promise<EventsListResponse> {
    return this.http.get('v1/events', q as Query);
  }

  // ---- items and epics
  item(ref: string): Promise<ItemResponse> {
    return this.http.get(`v1/items/${seg(ref)}`);
  }

  epicTasks(ref: string): Promise<EpicTasksResponse> {
    return this.http.get(`v1/epics/${seg(ref)}/tasks`);
  }

  // ---- transfer
  importBacklog(document: unknown, options: { replace?: boolean } = {}): Promise<ImportResponse> {
    return this.http.post('v1/import', document, { replace: options.replace ? '1' : undefined });
  }

  // ---- machine authorization
  // Pending requests the caller may decide (no secret is listed).
  machineAuthorizationRequests(): Promise<MachineAuthorizationRequestList> {
    return this.http.get('v1/machine-authorizations');
  }

  resolveMachineAuthorizationRequest(
    requestId: string,
    body: MachineAuthorizationRequestResolveBody,
  ): Promise<MachineAuthorizationResolveResponse> {
    return this.http.post(`v1/machine-authorizations/requests/${seg(requestId)}/resolve`, body);
  }

  // Hosted servers scope the functions by organization (/api/orgs/<slug>/v1/...).
  machineAuthorization(code: string, options: { org?: string } = {}): Promise<MachineAuthorizationRecord> {
    return this.http.get(orgPath(options.org, `machine-authorizations/${seg(code)}`));
  }

  resolveMachineAuthorization(
    body: { code: string; action: 'approve' | 'deny' },
    options: { org?: string } = {},
  ): Promise<MachineAuthorizationResolveResponse> {
    return this.http.post(orgPath(options.org, 'machine-authorizations/resolve'), body);
  }

  // svc approve <ref>: POST /v1/deployments/approvals (issue 15)
  approveDeployment(ref: string): Promise<DeploymentApproval> {
    return this.http.post('v1/deployments/approvals', { item: ref });
  }
}

function orgPath(org: string | undefined, rest: string): string {
  return org ? `api/orgs/${seg(org)}/v1/${rest}` : `v1/${rest}`;
}

export function isHttpError(err: unknown, status?: number, code?: string): err is SvcHttpError {
  return (
    err instanceof SvcHttpError &&
    (status === undefined || err.status === status) &&
    (code === undefined || err.code === code)
  );
}
