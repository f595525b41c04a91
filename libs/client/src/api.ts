import type {
  ActorListResponse,
  ActorWire,
  AddMemberRequest,
  CreateActorRequest,
  CreateOrganizationRequest,
  CreatedTokenResponse,
  CreateTokenRequest,
  MemberListResponse,
  MembershipWire,
  OrganizationDetailWire,
  OrganizationListResponse,
  OrganizationWire,
  RemoveMemberRequest,
  RemoveMemberResponse,
  RevokeTokenResponse,
  TokenListResponse,
  CandidatePlanWire,
  ChargeDecisionDetail,
  ChargeDecisionResponse,
  ClaimsResponse,
  DbClaimResponse,
  DependencyAddWire,
  DispatchResponse,
  EpicChainsResponse,
  EpicFilesResponse,
  EpicNotesResponse,
  EpicTasksResponse,
  EpicTaskWire,
  ChainWire,
  ExportDocument,
  GateEvaluationWire,
  HeartbeatResponse,
  ItemFieldWire,
  ItemListWire,
  ItemProgressWire,
  MachineListResponse,
  NoteWire,
  OuroborosEntryRequest,
  OuroborosEntryWire,
  OuroborosListQuery,
  OuroborosListResponse,
  ProjectResponse,
  RevokeMachineResponse,
  SessionListResponse,
  SessionResponse,
  WorkflowRegisterWire,
  WorkflowVersionWire,
  EventsListResponse,
  ExplainResponse,
  FrontierListResponse,
  FrontierDeltaWire,
  FrontierResultWire,
  FrontierWindowList,
  FrontierWindowWire,
  ImportResponse,
  ProjectSnapshot,
  ProjectSnapshotList,
  ItemResponse,
  MachineAuthorizationRecord,
  MachineAuthorizationRequestDenyResponse,
  MachineAuthorizationRequestList,
  MachineAuthorizationRequestResolveBody,
  MachineAuthorizationResolveResponse,
  ProjectListResponse,
  RegisterSessionResponse,
  ReleaseClaimResponse,
  ScheduleResponse,
  SortKey,
  SessionNoticesResponse,
  HistoryResponse,
  ItemCommentListWire,
  ItemCommentWire,
  WhoAmIResponse,
  DoctorReport,
  AddDispositionRequest,
  AddVerdictRequest,
  CreateEnvironmentRequest,
  CreateFlowRequest,
  CreateRunRequest,
  DeploymentApprovalResponse,
  DispositionListResponse,
  DispositionWire,
  EnvironmentListResponse,
  EnvironmentWire,
  FlowListResponse,
  FlowWire,
  ItemWorkflowWire,
  ResumeRunRequest,
  RunListResponse,
  RunWire,
  UpdateRunRequest,
  VerdictListResponse,
  VerdictWire,
  DependencyListResponse,
  DependencyRemovedResponse,
  GateEvaluationResponse,
  ItemSectionRemovedResponse,
  ItemSectionResponse,
  WorkflowListResponse,
} from '@app/contracts';
import { FRONTIER_DELTA_MEDIA_TYPE, FRONTIER_FULL_REASON_HEADER } from '@app/contracts';

import { Query, RawResponse, SvcClient, SvcHttpError } from './http-client';

export interface FrontierWindowQuery {
  project: string;
  list: FrontierWindowList;
  offset: number;
  limit: number;
  filter?: string;
  sort?: SortKey;
  desc?: boolean;
  wip_cap?: number | string;
}

export type FrontierRead =
  { notModified: true } | { notModified: false; body: FrontierResultWire; etag: string | null };

export type FrontierSinceRead =
  | { kind: 'not_modified' }
  | { kind: 'delta'; delta: FrontierDeltaWire; etag: string }
  | { kind: 'full'; body: FrontierResultWire; etag: string | null; reason: string | null };

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

export type WireBody = Record<string, unknown>;

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

// Nothing outside libs/client spells a route.
export class SvcApi {
  constructor(readonly http: SvcClient) {}

  get baseUrl(): string {
    return this.http.baseUrl;
  }

  // SvcConnectionError when nobody answers; 503 (starting, database away) is { ok: false }.
  async ready(): Promise<{ ok: boolean }> {
    const res = await this.http.raw('GET', 'readyz');
    return { ok: res.status === 200 };
  }

  whoami(): Promise<WhoAmIResponse> {
    return this.http.get('v1/whoami');
  }

  async readiness(): Promise<{ status: number; body: unknown }> {
    const res = await this.http.raw('GET', 'readyz');
    let body: unknown = null;
    try {
      body = JSON.parse(res.text);
    } catch {
      body = res.text.slice(0, 200);
    }
    return { status: res.status, body };
  }

  doctor(): Promise<DoctorReport> {
    return this.http.get('v1/doctor');
  }

  actors(): Promise<ActorListResponse> {
    return this.http.get('v1/actors');
  }

  actor(name: string): Promise<ActorWire> {
    return this.http.get(`v1/actors/${seg(name)}`);
  }

  createActor(body: CreateActorRequest): Promise<ActorWire> {
    return this.http.post('v1/actors', body);
  }

  setActorStatus(name: string, status: 'active' | 'disabled'): Promise<ActorWire> {
    return this.http.post(`v1/actors/${seg(name)}/${status === 'active' ? 'enable' : 'disable'}`);
  }

  members(org?: string): Promise<MemberListResponse> {
    return this.http.get('v1/members', { org });
  }

  addMember(body: AddMemberRequest): Promise<MembershipWire> {
    return this.http.post('v1/members', body);
  }

  removeMember(body: RemoveMemberRequest): Promise<RemoveMemberResponse> {
    return this.http.post('v1/members/remove', body);
  }

  tokens(query: { actor?: string; all?: boolean; include_revoked?: boolean } = {}): Promise<TokenListResponse> {
    return this.http.get('v1/tokens', query);
  }

  createToken(body: CreateTokenRequest): Promise<CreatedTokenResponse> {
    return this.http.post('v1/tokens', body);
  }

  revokeToken(id: number): Promise<RevokeTokenResponse> {
    return this.http.post(`v1/tokens/${seg(id)}/revoke`);
  }

  organizations(): Promise<OrganizationListResponse> {
    return this.http.get('v1/orgs');
  }

  organization(slug: string): Promise<OrganizationDetailWire> {
    return this.http.get(`v1/orgs/${seg(slug)}`);
  }

  createOrganization(body: CreateOrganizationRequest): Promise<OrganizationWire> {
    return this.http.post('v1/orgs', body);
  }

  projects(): Promise<ProjectListResponse> {
    return this.http.get('v1/projects');
  }

  // Without a project the daemon answers project_required with the list of projects (SvcHttpError).
  async frontier(q: { project?: string; wip_cap?: number | string }, etag?: string | null): Promise<FrontierRead> {
    const res = await this.http.raw('GET', 'v1/charge/frontier', {
      query: q as Query,
      headers: etag ? { 'if-none-match': etag } : {},
    });
    if (res.status === 304) return { notModified: true };
    const body = this.http.parse<FrontierResultWire>(res);
    return { notModified: false, body, etag: header(res.headers, 'etag') };
  }

  async frontierSince(q: { project: string; wip_cap?: number | string }, since: string): Promise<FrontierSinceRead> {
    const res = await this.http.raw('GET', 'v1/charge/frontier', { query: { ...q, since } as Query });
    if (res.status === 304) return { kind: 'not_modified' };
    const type = header(res.headers, 'content-type') ?? '';
    if (res.status === 200 && type.startsWith(FRONTIER_DELTA_MEDIA_TYPE)) {
      const delta = this.http.parse<FrontierDeltaWire>(res);
      return { kind: 'delta', delta, etag: delta.etag };
    }
    const body = this.http.parse<FrontierResultWire>(res);
    return {
      kind: 'full',
      body,
      etag: header(res.headers, 'etag'),
      reason: header(res.headers, FRONTIER_FULL_REASON_HEADER),
    };
  }

  // One list of the answer, filtered and sorted, a window of it (a client that does not hold the whole answer).
  frontierWindow(q: FrontierWindowQuery): Promise<FrontierWindowWire> {
    return this.http.get('v1/charge/frontier/window', { ...q, desc: q.desc ? 'true' : undefined } as Query);
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

  registerSession(body: RegisterSessionBody): Promise<RegisterSessionResponse> {
    return this.http.post('v1/sessions', body);
  }

  events(q: EventsQuery = {}): Promise<EventsListResponse> {
    return this.http.get('v1/events', q as Query);
  }

  item(ref: string): Promise<ItemResponse> {
    return this.http.get(`v1/items/${seg(ref)}`);
  }

  epicTasks(ref: string): Promise<EpicTasksResponse> {
    return this.http.get(`v1/epics/${seg(ref)}/tasks`);
  }

  importBacklog(document: unknown, options: { replace?: boolean } = {}): Promise<ImportResponse> {
    return this.http.post('v1/import', document, { replace: options.replace ? '1' : undefined });
  }

  machineAuthorizationRequests(): Promise<MachineAuthorizationRequestList> {
    return this.http.get('v1/machine-authorizations');
  }

  resolveMachineAuthorizationRequest(
    requestId: string,
    body: MachineAuthorizationRequestResolveBody,
  ): Promise<MachineAuthorizationResolveResponse> {
    return this.http.post(`v1/machine-authorizations/requests/${seg(requestId)}/resolve`, body);
  }

  // Approving still needs the code the machine shows.
  denyMachineAuthorizationRequest(requestId: string): Promise<MachineAuthorizationRequestDenyResponse> {
    return this.http.post(`v1/machine-authorizations/requests/${seg(requestId)}/deny`, {});
  }

  machineAuthorization(code: string, options: { org?: string } = {}): Promise<MachineAuthorizationRecord> {
    return this.http.get(orgPath(options.org, `machine-authorizations/${seg(code)}`));
  }

  resolveMachineAuthorization(
    body: { code: string; action: 'approve' | 'deny' },
    options: { org?: string } = {},
  ): Promise<MachineAuthorizationResolveResponse> {
    return this.http.post(orgPath(options.org, 'machine-authorizations/resolve'), body);
  }
  project(id: string): Promise<ProjectResponse> {
    return this.http.get(`v1/projects/${seg(id)}`);
  }

  createProject(body: WireBody): Promise<ProjectResponse> {
    return this.http.post('v1/projects', body);
  }

  updateProject(id: string, body: WireBody): Promise<ProjectResponse> {
    return this.http.patch(`v1/projects/${seg(id)}`, body);
  }

  session(id: string | number): Promise<SessionResponse> {
    return this.http.get(`v1/sessions/${seg(id)}`);
  }

  sessionNotices(id: string | number, after = '0'): Promise<SessionNoticesResponse> {
    return this.http.get(`v1/sessions/${seg(id)}/notices`, { after });
  }

  itemHistory(ref: string, query: { limit?: number; before?: string } = {}): Promise<HistoryResponse> {
    return this.http.get(`v1/items/${seg(ref)}/history`, query);
  }

  history(
    query: { project?: string; item?: string; actor?: string; object?: string; limit?: number; before?: string } = {},
  ): Promise<HistoryResponse> {
    return this.http.get('v1/history', query);
  }

  heartbeat(id: string | number): Promise<HeartbeatResponse> {
    return this.http.post(`v1/sessions/${seg(id)}/heartbeat`);
  }

  releaseClaim(id: string | number, itemId: string): Promise<ReleaseClaimResponse> {
    return this.http.post(`v1/sessions/${seg(id)}/release`, { item_id: itemId });
  }

  endSession(id: string | number): Promise<SessionResponse> {
    return this.http.post(`v1/sessions/${seg(id)}/end`);
  }

  items(q: Query = {}): Promise<ItemListWire> {
    return this.http.get('v1/items', q);
  }

  createItem(body: WireBody): Promise<ItemResponse> {
    return this.http.post('v1/items', body);
  }

  itemAction(ref: string, actionPath: string): Promise<ItemResponse> {
    return this.http.post(`v1/items/${seg(ref)}/${actionPath.split('/').map(seg).join('/')}`);
  }

  setItemStatus(ref: string, status: string, force = false): Promise<ItemResponse> {
    return this.http.post(`v1/items/${seg(ref)}/status`, force ? { status, force } : { status });
  }

  blockItem(ref: string, body: WireBody): Promise<ItemResponse> {
    return this.http.post(`v1/items/${seg(ref)}/block`, body);
  }

  resolveItem(ref: string, body: WireBody): Promise<ItemResponse> {
    return this.http.post(`v1/items/${seg(ref)}/resolve`, body);
  }

  itemField(ref: string, field: string): Promise<ItemFieldWire> {
    return this.http.get(`v1/items/${seg(ref)}/fields/${seg(field)}`);
  }

  setItemField(ref: string, field: string, body: WireBody): Promise<ItemResponse> {
    return this.http.put(`v1/items/${seg(ref)}/fields/${seg(field)}`, body);
  }

  // Open to anyone who sees the item, claimed or not: a note, not a change.
  addComment(ref: string, body: string): Promise<ItemCommentWire> {
    return this.http.post(`v1/items/${seg(ref)}/comments`, { body });
  }

  listComments(ref: string, query: { limit?: number; cursor?: string } = {}): Promise<ItemCommentListWire> {
    return this.http.get(`v1/items/${seg(ref)}/comments`, query);
  }

  itemProgress(ref: string): Promise<ItemProgressWire> {
    return this.http.get(`v1/items/${seg(ref)}/progress`);
  }

  putSection(ref: string, name: string, body: WireBody): Promise<ItemSectionResponse> {
    return this.http.put(`v1/items/${seg(ref)}/sections/${seg(name)}`, body);
  }

  deleteSection(ref: string, name: string): Promise<ItemSectionRemovedResponse> {
    return this.http.delete(`v1/items/${seg(ref)}/sections/${seg(name)}`);
  }

  itemWorkflow(ref: string): Promise<ItemWorkflowWire> {
    return this.http.get(`v1/items/${seg(ref)}/workflow`);
  }

  dbClaim(ref: string): Promise<DbClaimResponse> {
    return this.http.get(`v1/items/${seg(ref)}/db-claim`);
  }

  amendDbClaim(
    ref: string,
    payload: unknown,
    q: { session_id?: number; reason?: string } = {},
  ): Promise<DbClaimResponse> {
    return this.http.json('POST', `v1/items/${seg(ref)}/db-claim`, { body: payload, query: q });
  }

  negativeDbClaim(ref: string, body: { reason?: string }, q: { session_id?: number } = {}): Promise<DbClaimResponse> {
    return this.http.json('POST', `v1/items/${seg(ref)}/db-claim/negative`, { body, query: q });
  }

  addDependency(dependent: string, body: WireBody): Promise<DependencyAddWire> {
    return this.http.post(`v1/items/${seg(dependent)}/dependencies`, body);
  }

  dependencies(ref: string, q: { direction?: string; gate_point?: string } = {}): Promise<DependencyListResponse> {
    return this.http.get(`v1/items/${seg(ref)}/dependencies`, q);
  }

  removeDependency(
    dependent: string,
    blocker: string,
    q: { gate_point?: string } = {},
  ): Promise<DependencyRemovedResponse> {
    return this.http.delete(`v1/items/${seg(dependent)}/dependencies/${seg(blocker)}`, q);
  }

  evaluateGate(q: { item: string; gate_point: string }): Promise<GateEvaluationWire> {
    return this.http.get('v1/gates/evaluate', q);
  }

  planCandidates(body: { gate_point: string; items: string[] }): Promise<CandidatePlanWire> {
    return this.http.post('v1/gates/plan', body);
  }

  evaluateGates(body: WireBody): Promise<GateEvaluationResponse> {
    return this.http.post('v1/gates/evaluate-batch', body);
  }

  registerWorkflow(document: unknown): Promise<WorkflowRegisterWire> {
    return this.http.post('v1/workflows', document);
  }

  workflows(): Promise<WorkflowListResponse> {
    return this.http.get('v1/workflows');
  }

  workflowDefinition(workflow: string): Promise<WorkflowVersionWire> {
    return this.http.get(`v1/workflows/${seg(workflow)}/definition`);
  }

  workflowVersion(workflow: string, version: string | number): Promise<WorkflowVersionWire> {
    return this.http.get(`v1/workflows/${seg(workflow)}/versions/${seg(version)}`);
  }

  epic(ref: string): Promise<EpicTasksResponse> {
    return this.http.get(`v1/epics/${seg(ref)}`);
  }

  epicTask(ref: string, num: string | number): Promise<EpicTaskWire> {
    return this.http.get(`v1/epics/${seg(ref)}/tasks/${seg(num)}`);
  }

  createEpicTask(ref: string, body: WireBody): Promise<EpicTaskWire> {
    return this.http.post(`v1/epics/${seg(ref)}/tasks`, body);
  }

  updateEpicTask(ref: string, num: string | number, body: WireBody): Promise<EpicTaskWire> {
    return this.http.patch(`v1/epics/${seg(ref)}/tasks/${seg(num)}`, body);
  }

  dispatchEpicTask(ref: string, num: string | number): Promise<EpicTaskWire> {
    return this.http.post(`v1/epics/${seg(ref)}/tasks/${seg(num)}/dispatch`);
  }

  addEpicTaskFile(ref: string, num: string | number, body: WireBody): Promise<EpicFilesResponse> {
    return this.http.post(`v1/epics/${seg(ref)}/tasks/${seg(num)}/files`, body);
  }

  epicFiles(ref: string): Promise<EpicFilesResponse> {
    return this.http.get(`v1/epics/${seg(ref)}/files`);
  }

  setEpicChain(ref: string, worktree: string, body: WireBody): Promise<ChainWire> {
    return this.http.put(`v1/epics/${seg(ref)}/chains/${seg(worktree)}`, body);
  }

  epicChains(ref: string): Promise<EpicChainsResponse> {
    return this.http.get(`v1/epics/${seg(ref)}/chains`);
  }

  addEpicNote(ref: string, num: string | number, body: WireBody): Promise<NoteWire> {
    return this.http.post(`v1/epics/${seg(ref)}/tasks/${seg(num)}/notes`, body);
  }

  epicNotes(ref: string, q: { task?: number } = {}): Promise<EpicNotesResponse> {
    return this.http.get(`v1/epics/${seg(ref)}/notes`, q);
  }

  exportBacklog(project: string): Promise<ExportDocument> {
    return this.http.get('v1/export', { project });
  }

  projectSnapshots(project: string): Promise<ProjectSnapshotList> {
    return this.http.get(`v1/projects/${seg(project)}/snapshots`);
  }

  projectSnapshot(project: string, id: string): Promise<ProjectSnapshot> {
    return this.http.get(`v1/projects/${seg(project)}/snapshots/${seg(id)}`);
  }

  recordShepherdVerdict(body: AddVerdictRequest): Promise<VerdictWire> {
    return this.http.post('v1/records/shepherd-verdicts', body);
  }

  shepherdVerdicts(item?: string): Promise<VerdictListResponse> {
    return this.http.get('v1/records/shepherd-verdicts', { item });
  }

  recordCaveatDisposition(body: AddDispositionRequest): Promise<DispositionWire> {
    return this.http.post('v1/records/caveat-dispositions', body);
  }

  caveatDispositions(item?: string): Promise<DispositionListResponse> {
    return this.http.get('v1/records/caveat-dispositions', { item });
  }

  recordOuroboros(body: OuroborosEntryRequest): Promise<OuroborosEntryWire> {
    return this.http.post('v1/records/ouroboros', body);
  }

  ouroboros(q: OuroborosListQuery = {}): Promise<OuroborosListResponse> {
    return this.http.get('v1/records/ouroboros', q as Query);
  }

  ouroborosAction(id: string, verb: 'review' | 'archive'): Promise<OuroborosEntryWire> {
    return this.http.post(`v1/records/ouroboros/${seg(id)}/${seg(verb)}`);
  }

  createDeploymentFlow(body: CreateFlowRequest): Promise<FlowWire> {
    return this.http.post('v1/deployments/flows', body);
  }

  deploymentFlows(project: string): Promise<FlowListResponse> {
    return this.http.get('v1/deployments/flows', { project });
  }

  createEnvironment(body: CreateEnvironmentRequest): Promise<EnvironmentWire> {
    return this.http.post('v1/deployments/environments', body);
  }

  environments(project: string): Promise<EnvironmentListResponse> {
    return this.http.get('v1/deployments/environments', { project });
  }

  retireEnvironment(project: string, name: string): Promise<EnvironmentWire> {
    return this.http.post(`v1/deployments/environments/${seg(project)}/${seg(name)}/retire`);
  }

  unretireEnvironment(project: string, name: string): Promise<EnvironmentWire> {
    return this.http.post(`v1/deployments/environments/${seg(project)}/${seg(name)}/unretire`);
  }

  createDeploymentRun(body: CreateRunRequest): Promise<RunWire> {
    return this.http.post('v1/deployments/runs', body);
  }

  updateDeploymentRun(id: string, body: UpdateRunRequest): Promise<RunWire> {
    return this.http.patch(`v1/deployments/runs/${seg(id)}`, body);
  }

  deploymentRuns(project: string): Promise<RunListResponse> {
    return this.http.get('v1/deployments/runs', { project });
  }

  machines(q: { include_revoked?: boolean } = {}): Promise<MachineListResponse> {
    return this.http.get('v1/machines', { include_revoked: q.include_revoked ? 'true' : undefined });
  }

  revokeMachine(machineId: string): Promise<RevokeMachineResponse> {
    return this.http.post('v1/machines/revoke', { machine_id: machineId });
  }

  // The machine's side: no token; `base` may carry a hosted organization's /api/orgs/<slug> prefix.
  startMachineAuthorizationRaw(body: unknown): Promise<RawResponse> {
    return this.http.raw('POST', 'api/machine/authorizations', { body });
  }

  pollMachineAuthorizationRaw(body: unknown): Promise<RawResponse> {
    return this.http.raw('POST', 'api/machine/authorizations/token', { body });
  }

  approveDeployment(ref: string): Promise<DeploymentApprovalResponse> {
    return this.http.post('v1/deployments/approvals', { item: ref });
  }

  resumeDeploymentRun(id: string, body: ResumeRunRequest = {}): Promise<RunWire> {
    return this.http.post(`v1/deployments/runs/${seg(id)}/resume`, body);
  }

  listSessions(
    q: { project?: string; harness?: string; state?: string; limit?: number | string } = {},
  ): Promise<SessionListResponse> {
    return this.http.get('v1/sessions', q as Query);
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
