import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { ImportNotCarried } from '@app/contracts';
import { WorkflowDefinition } from '@app/contracts/backlog';

import { AuthenticatedActor } from '../auth/actor';
import { DomainError, validationFailed } from '../common/domain-error';
import { nameWritePath, notePassed } from '../database/write-context';
import { DependenciesService } from '../dependencies/dependencies.service';
import { parseEvidence } from '../dependencies/dto/dependencies.dto';
import { DeploymentsService } from '../deployments/deployments.service';
import { parseFlowStages } from '../deployments/flow-stages';
import { parseQueue, parseTaskNumbers } from '../epics/dto/epics.dto';
import { checkTaskDependencies, EPIC_WORKFLOW } from '../epics/epics.service';
import { ItemRow } from '../items/dto/items.dto';
import { INSERTABLE_COLUMNS, ITEM_DOC_COLUMNS, NewItem } from '../items/item-fields';
import { stageNotInWorkflow } from '../items/items.errors';
import { assertTitle, ItemsService } from '../items/items.service';
import { ProjectAccessService, projectNotFound } from '../projects/project-access.service';
import { mergePolicy, validatePolicyPatch } from '../projects/project-policy';
import { organizationMembershipRequired } from '../projects/projects.errors';
import { policyInvalid, ProjectsService } from '../projects/projects.service';
import { stageOf } from '../workflows/workflow-definition';
import { WorkflowsService } from '../workflows/workflows.service';
import { BACKLOG_FORMAT, validateBacklogDocument } from './backlog-format';
import {
  BacklogDocument,
  DocApproval,
  DocItem,
  DocRun,
  DocSection,
  ImportSummary,
  Snapshot,
  SnapshotList,
} from './dto/transfer.dto';
import {
  flowExistsElsewhere,
  importPrefixTaken,
  invalidBacklog,
  itemOfFileRefused,
  notAnEpicItem,
  approvalStageRemoved,
  projectAdminRequired,
  runNotRecordable,
  snapshotNotFound,
  statusNotReachable,
  pinnedWorkflowMissing,
  prefixMismatch,
  projectNotEmpty,
  runExists,
  unknownEpicTasks,
  unresolvedRefs,
} from './transfer.errors';
import { TransferRepository } from './transfer.repository';

function sequenceOf(ref: string): number {
  return Number(ref.slice(ref.lastIndexOf('-') + 1));
}

// JSON equality regardless of key order (a jsonb column answers its keys in its own order).
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  return value;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function approvalKey(runId: string, a: DocApproval): string {
  return JSON.stringify([
    runId,
    a.stage_index,
    a.stage,
    a.item ?? null,
    a.approved_by ?? null,
    a.approver_role,
    a.approved_at,
  ]);
}

function approvalReport(
  runId: string,
  a: DocApproval,
  reason: ImportNotCarried['deployment_approvals'][number]['reason'],
): ImportNotCarried['deployment_approvals'][number] {
  return { run_id: runId, stage_index: a.stage_index, stage: a.stage, approved_by: a.approved_by ?? null, reason };
}

// A run of the file that is the run as the replaced project held it (what the gates read of it unchanged).
function sameRun(before: DocRun | undefined, run: DocRun): boolean {
  if (!before) return false;
  return (
    (before.flow_id ?? null) === (run.flow_id ?? null) &&
    before.environment === run.environment &&
    (before.status ?? 'running') === (run.status ?? 'running') &&
    (before.stage_index ?? 0) === (run.stage_index ?? 0) &&
    (before.current_stage ?? null) === (run.current_stage ?? null) &&
    sameJson(before.items, run.items)
  );
}

@Injectable()
export class TransferService {
  constructor(
    private readonly repository: TransferRepository,
    private readonly projects: ProjectsService,
    private readonly access: ProjectAccessService,
    private readonly items: ItemsService,
    private readonly workflows: WorkflowsService,
    private readonly dependencies: DependenciesService,
    private readonly deployments: DeploymentsService,
  ) {}

  async export(actor: AuthenticatedActor, projectId: string): Promise<BacklogDocument> {
    await this.access.assertProject(actor, projectId);
    return this.exportRows(projectId);
  }

  async snapshots(actor: AuthenticatedActor, projectId: string): Promise<SnapshotList> {
    await this.assertAdministers(actor, projectId, 'reading its snapshots');
    return { project: projectId, snapshots: await this.repository.snapshots(projectId) };
  }

  async snapshot(actor: AuthenticatedActor, projectId: string, id: string): Promise<Snapshot> {
    await this.assertAdministers(actor, projectId, 'reading its snapshots');
    const row = /^[0-9]{1,18}$/.test(id) ? await this.repository.snapshot(projectId, id) : null;
    if (!row) throw snapshotNotFound(projectId, id);
    return row;
  }

  private async assertAdministers(actor: AuthenticatedActor, projectId: string, what: string): Promise<void> {
    await this.access.assertProject(actor, projectId);
    if (!(await this.projects.administers(actor, projectId))) throw projectAdminRequired(projectId, what);
  }

  // No route removes or weakens a flow's approval stage, so no file does: each approval stage of the replaced
  // project's flows must be in the file's flow of the same id, by name, at least as strong.
  private assertApprovalStagesKept(previous: BacklogDocument | null, doc: BacklogDocument): void {
    const next = new Map((doc.deployments?.flows ?? []).map((f) => [f.id, parseFlowStages(f.stages ?? [])]));
    for (const flow of previous?.deployments?.flows ?? []) {
      for (const stage of parseFlowStages(flow.stages ?? [])) {
        if (stage.approval === null) continue;
        const kept = (next.get(flow.id) ?? []).find((s) => s.name === stage.name);
        if (!kept?.approval || (stage.approval.role === 'admin' && kept.approval.role !== 'admin'))
          throw approvalStageRemoved(flow.id, stage.name, stage.approval.role);
      }
    }
  }

  private async exportRows(projectId: string): Promise<BacklogDocument> {
    const project = await this.projects.findRow(projectId);
    if (!project) throw projectNotFound(projectId);
    const prefix = project.public_item_prefix;
    const rows = await this.items.rowsOfProject(projectId);
    const refOf = (sequence: number) => `${prefix}-${sequence}`;
    const [
      sections,
      edges,
      versions,
      tasks,
      files,
      chains,
      notes,
      verdicts,
      dispositions,
      flows,
      envs,
      runs,
      approvals,
    ] = await Promise.all([
      this.items.sectionsOf(rows.map((r) => r.id)),
      this.dependencies.edgesOfProject(projectId),
      this.workflows.versionsByIds([...new Set(rows.map((r) => r.workflow_version_id))]),
      this.repository.epicTasks(projectId),
      this.repository.epicFiles(projectId),
      this.repository.epicChains(projectId),
      this.repository.epicNotes(projectId),
      this.repository.verdicts(prefix),
      this.repository.dispositions(prefix),
      this.deployments.flowsOf(projectId),
      this.deployments.environmentsOf(projectId),
      this.deployments.runsOf(projectId),
      this.deployments.approvalsOf(projectId),
    ]);
    const carried = [...new Set(runs.flatMap((r) => r.carried_items))];
    const carriedRefs = new Map((await this.items.rowsByIds(carried)).map((r) => [r.id, r.ref] as [number, string]));

    const workflowIds = [...new Set(versions.map((v) => v.workflow_id))].sort();
    const epicSequences = [...new Set([...tasks, ...files, ...chains, ...notes].map((r) => r.epic_sequence))].sort(
      (a, b) => a - b,
    );
    const verdictKeys = new Map(verdicts.map((v, i) => [v.id, i + 1]));

    return {
      format: BACKLOG_FORMAT,
      project: {
        id: project.id,
        name: project.name,
        public_item_prefix: prefix,
        next_sequence: project.next_sequence,
        policy: project.policy,
      },
      workflows: workflowIds.map((id) => {
        const own = versions.filter((v) => v.workflow_id === id).sort((a, b) => a.version - b.version);
        return {
          id,
          name: own[own.length - 1].definition.name,
          versions: own.map((v) => ({ version: v.version, definition: v.definition })),
        };
      }),
      items: rows.map((row) =>
        this.itemDoc(
          row,
          sections.filter((s) => s.item_id === row.id),
        ),
      ),
      dependencies: edges
        .filter((e) => e.blocker_ref !== null)
        .map((e) => {
          const evidence = parseEvidence(e.evidence_json);
          const exact = JSON.stringify(evidence) === e.evidence_json;
          return {
            dependent: e.dependent_ref,
            blocker: e.blocker_ref!,
            gate_point: e.gate_point,
            satisfaction: e.satisfaction,
            source: e.source,
            session_id: e.session_id,
            rationale: e.rationale,
            ...(exact ? { evidence } : { evidence_json: e.evidence_json }),
            created_at: e.created_at,
          };
        }),
      epics: epicSequences.map((sequence) => ({
        epic: refOf(sequence),
        tasks: tasks
          .filter((t) => t.epic_sequence === sequence)
          .map(({ epic_sequence: _e, ...t }) => ({
            ...t,
            task_num: t.task_num as number,
            dependencies: parseTaskNumbers(t.dependencies as string | null),
          })),
        files: files.filter((f) => f.epic_sequence === sequence).map(({ epic_sequence: _e, ...f }) => f),
        chains: chains
          .filter((c) => c.epic_sequence === sequence)
          .map(({ epic_sequence: _e, ...c }) => ({
            ...c,
            worktree: c.worktree as string,
            queue: parseQueue(c.queue as string | null),
          })),
        notes: notes
          .filter((n) => n.epic_sequence === sequence)
          .map(({ epic_sequence: _e, ...n }) => n as { task_num: number; note_num: number; body: string }),
      })),
      records: {
        shepherd_verdicts: verdicts.map(({ id, ...v }) => ({ key: verdictKeys.get(id)!, ...v })),
        caveat_dispositions: dispositions.map(({ verdict_id, ...d }) => ({
          ...d,
          verdict_key: verdict_id === null ? null : (verdictKeys.get(verdict_id) ?? null),
        })),
      },
      deployments: {
        flows: flows.map(({ project: _p, ...f }) => f),
        environments: envs.map(({ project: _p, ...e }) => e),
        // halts and the runner's declared capabilities are not exported: the next usher step declares and derives
        // them again from the flow and the approvals; required_approval is the database's (it records it on import)
        runs: runs.map(
          ({
            project: _p,
            carried_items,
            halt_kind: _k,
            halt_stage: _s,
            halt_missing: _m,
            halted_at: _h,
            capabilities: _c,
            required_approval: _ra,
            ...r
          }) => {
            const { started_at, finished_at, ...rest } = r;
            const recorded = approvals.filter((a) => a.run_id === r.id).map(({ run_id: _r, ...a }) => a);
            return {
              ...rest,
              items: carried_items.map((id) => carriedRefs.get(id) ?? `#${id}`),
              started_at,
              finished_at,
              ...(recorded.length > 0 ? { approvals: recorded } : {}),
            };
          },
        ),
      },
    };
  }

  private itemDoc(
    row: ItemRow,
    sections: {
      section_name: string;
      content: string | null;
      ordering: number;
      created_at: string;
      updated_at: string;
    }[],
  ): DocItem {
    const doc: DocItem = {
      ref: row.ref,
      title: row.title,
      workflow_id: row.workflow_id,
      workflow_version: row.workflow_version,
    };
    for (const column of ITEM_DOC_COLUMNS) (doc as Record<string, unknown>)[column] = row[column];
    doc.sections = sections.map((s) => ({
      section_name: s.section_name,
      content: s.content,
      ordering: s.ordering,
      created_at: s.created_at,
      updated_at: s.updated_at,
    }));
    return doc;
  }

  async import(actor: AuthenticatedActor, raw: unknown, replace: boolean): Promise<ImportSummary> {
    nameWritePath('import');
    const problems = validateBacklogDocument(raw);
    if (problems.length > 0) {
      throw validationFailed(problems);
    }
    const doc = raw as BacklogDocument;
    const policyProblems = validatePolicyPatch(doc.project.policy ?? {});
    if (policyProblems.length > 0)
      throw policyInvalid(policyProblems.map((p) => ({ ...p, field: `project.${p.field}` })));
    this.checkReferences(doc);
    return this.repository.transaction((manager) => this.importIn(actor, doc, replace, manager));
  }

  private checkReferences(doc: BacklogDocument): void {
    const prefix = doc.project.public_item_prefix;
    const problems: string[] = [];
    const refs = new Set<string>();
    for (const item of doc.items ?? []) {
      if (!item.ref.startsWith(`${prefix}-`)) problems.push(`item ${item.ref} does not carry the prefix ${prefix}`);
      if (refs.has(item.ref)) problems.push(`item ${item.ref} appears twice`);
      refs.add(item.ref);
    }
    for (const d of doc.dependencies ?? []) {
      if (!refs.has(d.dependent)) problems.push(`dependency dependent ${d.dependent} is not an item of the file`);
    }
    for (const e of doc.epics ?? []) if (!refs.has(e.epic)) problems.push(`epic ${e.epic} is not an item of the file`);
    for (const v of [...(doc.records?.shepherd_verdicts ?? []), ...(doc.records?.caveat_dispositions ?? [])]) {
      if (!refs.has(v.item)) problems.push(`record for ${v.item}, which is not an item of the file`);
    }
    const keys = new Set((doc.records?.shepherd_verdicts ?? []).map((v) => v.key));
    for (const d of doc.records?.caveat_dispositions ?? []) {
      if (d.verdict_key != null && !keys.has(d.verdict_key))
        problems.push(`verdict_key ${d.verdict_key} names no verdict`);
    }
    if (problems.length > 0) throw invalidBacklog(problems);
  }

  private async importIn(
    actor: AuthenticatedActor,
    doc: BacklogDocument,
    replace: boolean,
    manager: EntityManager,
  ): Promise<ImportSummary> {
    const projectId = doc.project.id;
    const prefix = doc.project.public_item_prefix;
    const existing = await this.repository.projectForUpdate(projectId, manager);
    let external: { id: number; sequence: number }[] = [];
    let previous: BacklogDocument | null = null;
    let snapshotId: string | null = null;
    const notCarried: ImportNotCarried = { claims: [], deployment_approvals: [] };
    if (existing) {
      if (!(await this.access.canSee(actor, [projectId]))) throw projectNotFound(projectId);
      notePassed('scope');
      if (existing.public_item_prefix !== prefix) {
        throw prefixMismatch(projectId, existing.public_item_prefix, prefix);
      }
      const holds = Number(existing.items) + Number(existing.deployments) > 0;
      if (holds && !replace) {
        throw projectNotEmpty(projectId, Number(existing.items));
      }
      // Replacing is an admin's act; so is changing the policy, which a plain import would do too.
      const admin = await this.projects.administers(actor, projectId);
      if (holds && !admin) throw projectAdminRequired(projectId, 'replacing the project');
      if (!admin && doc.project.policy !== undefined && !sameJson(doc.project.policy, existing.policy)) {
        throw projectAdminRequired(projectId, "changing the project's policy");
      }
      notePassed('role');
      if (holds) {
        // Locked before anything is written: every import of it and write on its items waits for this transaction.
        await this.repository.lockItems(projectId, manager);
        previous = await this.exportRows(projectId);
        const claims = await this.repository.claimsOf(projectId, manager);
        // the format carries no comments: the snapshot keeps them, as the replace removes them with their items
        const comments = await this.repository.commentsOf(projectId, manager);
        snapshotId = await this.repository.insertSnapshot(
          {
            project: projectId,
            actorId: actor.id,
            reason: 'import --replace',
            document: previous,
            held: { claims, comments },
          },
          manager,
        );
        notCarried.claims = claims;
      }
      external = await this.repository.externalEdges(projectId, manager);
      await this.repository.clearProject(projectId, prefix, manager);
      await this.repository.updateProject(projectId, doc.project.name, doc.project.policy, manager);
    } else {
      if ((await this.projects.conflictOf(projectId, prefix, manager)) === 'prefix') {
        throw importPrefixTaken(prefix);
      }
      const organizationId = await this.projects.organizationFor(actor, manager);
      if (organizationId === null) throw organizationMembershipRequired();
      notePassed('scope');
      notePassed('role');
      await this.projects.insertRow(
        {
          id: projectId,
          name: doc.project.name ?? projectId,
          prefix,
          policy: mergePolicy({}, doc.project.policy ?? {}),
          organizationId,
        },
        manager,
      );
    }
    const policy = doc.project.policy ?? {};
    const summary: ImportSummary = {
      project: projectId,
      replaced: previous !== null,
      items: 0,
      sections: 0,
      dependencies: 0,
      epic_tasks: 0,
      shepherd_verdicts: 0,
      caveat_dispositions: 0,
      deployment_flows: 0,
      environments: 0,
      deployment_runs: 0,
      workflow_versions_created: 0,
      snapshot_id: snapshotId,
      not_carried: notCarried,
    };

    // Workflow versions are matched by definition checksum; a missing one is registered (never changed).
    const pins = new Map<string, { id: number; version: number; definition: WorkflowDefinition }>();
    for (const workflow of doc.workflows ?? []) {
      for (const version of workflow.versions) {
        const definition = this.workflows.parseDefinition(
          version.definition,
          `workflows.${workflow.id}.v${version.version}.`,
        );
        if (definition.id !== workflow.id) {
          throw invalidBacklog([`workflow ${workflow.id} version ${version.version} defines ${definition.id}`]);
        }
        const { row, created } = await this.workflows.registerIn(definition, String(actor.id), manager, false);
        if (created) summary.workflow_versions_created += 1;
        pins.set(`${workflow.id}@${version.version}`, { id: row.id, version: row.version, definition: row.definition });
      }
    }

    this.assertApprovalStagesKept(previous, doc);
    const previousFlows = new Set((previous?.deployments?.flows ?? []).map((f) => f.id));
    for (const flow of doc.deployments?.flows ?? []) {
      if (!previousFlows.has(flow.id)) await this.deployments.checkImportedFlow(actor, projectId, flow, manager);
      if (!(await this.repository.insertFlow(projectId, flow, manager))) {
        throw flowExistsElsewhere(flow.id);
      }
      summary.deployment_flows += 1;
    }

    const idOf = new Map<string, number>();
    // where POST /v1/items/<ref>/status would have moved each item from: its status before, else its initial stage
    const movedFrom = new Map<string, { from: string; to: string }>();
    const previousStatus = new Map((previous?.items ?? []).map((i) => [i.ref, i.status]));
    const epicItems = new Set<string>();
    const items = [...(doc.items ?? [])].sort((a, b) => sequenceOf(a.ref) - sequenceOf(b.ref));
    // Checked item by item in file order, then written in a few batched statements (docs/adr/0062).
    const current = new Map<string, { id: number; version: number; definition: WorkflowDefinition }>();
    const rows: NewItem[] = [];
    for (const item of items) {
      const pin = await this.pinFor(item, pins, current, manager);
      const status = item.status ?? pin.definition.initial_stage;
      if (!stageOf(pin.definition, status)) {
        throw itemOfFileRefused(item.ref, stageNotInWorkflow(status, pin.definition, pin.version));
      }
      try {
        assertTitle(item.title, policy);
      } catch (err) {
        if (err instanceof DomainError) throw itemOfFileRefused(item.ref, err);
        throw err;
      }
      const values: Record<string, string | number | null> = {};
      for (const column of INSERTABLE_COLUMNS) {
        if (item[column] !== undefined) values[column] = item[column] as string | number | null;
      }
      rows.push({
        project: projectId,
        sequence: sequenceOf(item.ref),
        title: item.title,
        workflowId: pin.definition.id,
        workflowVersionId: pin.id,
        status,
        source: typeof item.source === 'string' ? item.source : String(actor.id),
        values,
      });
      movedFrom.set(item.ref, { from: previousStatus.get(item.ref) ?? pin.definition.initial_stage, to: status });
      if (pin.definition.id === EPIC_WORKFLOW) epicItems.add(item.ref);
    }
    const ids = await this.items.insertRows(rows, manager);
    const sections: { itemId: number; section: DocSection }[] = [];
    items.forEach((item, i) => {
      idOf.set(item.ref, ids[i]);
      for (const section of item.sections ?? []) sections.push({ itemId: ids[i], section });
    });
    await this.repository.insertSections(sections, manager);
    summary.items = items.length;
    summary.sections = sections.length;

    const fileRefs = new Set(items.map((i) => i.ref));
    const outside = new Set<string>();
    for (const d of doc.dependencies ?? []) if (!idOf.has(d.blocker)) outside.add(d.blocker);
    for (const r of doc.deployments?.runs ?? []) for (const ref of r.items) if (!idOf.has(ref)) outside.add(ref);
    // an item the importer cannot see answers like a missing one, as it does on the dependency routes
    const visible = outside.size > 0 ? await this.access.visibleProjects(actor) : null;
    for (const found of await this.repository.resolveExisting([...outside], manager)) {
      if (visible === null || visible.includes(found.project)) idOf.set(found.ref, found.id);
    }
    const unresolved = [...outside].filter((r) => !idOf.has(r));
    if (unresolved.length > 0) {
      throw unresolvedRefs(unresolved);
    }

    const graph = await this.dependencies.lockGraph(manager, projectId);
    const edges = (doc.dependencies ?? []).map((d) => ({
      dependent: { id: idOf.get(d.dependent)!, ref: d.dependent },
      blocker: { id: idOf.get(d.blocker)!, ref: d.blocker },
      gatePoint: d.gate_point ?? 'activation',
      satisfaction: d.satisfaction ?? 'status:done',
      source: d.source ?? 'migration',
      sessionId: d.session_id ?? null,
      rationale: d.rationale ?? '',
      evidence: d.evidence ?? {},
      evidenceJson: d.evidence_json,
      createdAt: d.created_at ?? null,
    }));
    summary.dependencies = await this.dependencies.addManyIn(edges, manager, graph);

    for (const epic of doc.epics ?? []) {
      if (!epicItems.has(epic.epic)) throw notAnEpicItem(epic.epic);
      const epicId = idOf.get(epic.epic)!;
      const tasks = epic.tasks ?? [];
      const taskRows = tasks.map((t) => ({ task_num: t.task_num, dependencies: (t.dependencies ?? []).join(',') }));
      for (const task of tasks) {
        if (typeof task.title === 'string') assertTitle(task.title, policy);
        checkTaskDependencies(epic.epic, taskRows as never, task.task_num, task.dependencies ?? []);
        const dependencies = task.dependencies && task.dependencies.length > 0 ? task.dependencies.join(',') : null;
        await this.repository.insertTask(epicId, { ...task, dependencies }, manager);
        summary.epic_tasks += 1;
      }
      const known = new Set(tasks.map((t) => t.task_num));
      const strays = [
        ...(epic.files ?? []).map((f) => f.task_num),
        ...(epic.notes ?? []).map((n) => n.task_num),
        ...(epic.chains ?? []).flatMap((c) => c.queue ?? []),
      ].filter((n) => !known.has(n));
      if (strays.length > 0) {
        throw unknownEpicTasks(epic.epic, strays);
      }
      for (const file of epic.files ?? []) await this.repository.insertFile(epicId, file, manager);
      for (const chain of epic.chains ?? []) await this.repository.insertChain(epicId, chain, manager);
      for (const note of epic.notes ?? []) await this.repository.insertNote(epicId, note, manager);
    }

    const verdictIds = new Map<number, number>();
    for (const [i, verdict] of (doc.records?.shepherd_verdicts ?? []).entries()) {
      const id = await this.repository.insertVerdict(verdict, verdict.item, manager);
      verdictIds.set(verdict.key ?? i + 1, id);
      summary.shepherd_verdicts += 1;
    }
    for (const d of doc.records?.caveat_dispositions ?? []) {
      const verdictId = d.verdict_key == null ? null : (verdictIds.get(d.verdict_key) ?? null);
      if (!(await this.repository.insertDisposition(d, d.item, verdictId, manager))) {
        throw invalidBacklog([`caveat ${d.caveat_num} of ${d.item} ${d.transition} appears twice`]);
      }
      summary.caveat_dispositions += 1;
    }

    for (const env of doc.deployments?.environments ?? []) {
      await this.repository.insertEnvironment(projectId, env, manager);
      summary.environments += 1;
    }
    const recorded = new Set(
      (await this.repository.snapshotApprovals(projectId, manager)).map((r) =>
        approvalKey(r.run_id, r.approval as DocApproval),
      ),
    );
    const carriedApprovals = new Set<string>();
    const runIds: { id: string; run: DocRun }[] = [];
    for (const run of doc.deployments?.runs ?? []) {
      const carried = [...new Set(run.items.map((r) => idOf.get(r)!))];
      const id = await this.repository.insertRun(projectId, run, carried, manager);
      if (id === null) {
        throw runExists(run.id);
      }
      runIds.push({ id, run });
      // An approval counts only where this server recorded it on this project (it is in the project as replaced or
      // in one of its snapshots); any other is left out and reported: a file cannot approve.
      for (const approval of run.approvals ?? []) {
        const key = approvalKey(id, approval);
        if (recorded.has(key)) {
          const item = approval.item ? (idOf.get(approval.item) ?? null) : null;
          await this.repository.insertApproval(id, approval, item, manager);
          carriedApprovals.add(key);
        } else notCarried.deployment_approvals.push(approvalReport(id, approval, 'not_recorded_here'));
      }
      summary.deployment_runs += 1;
    }
    for (const run of previous?.deployments?.runs ?? []) {
      for (const approval of run.approvals ?? []) {
        if (!carriedApprovals.has(approvalKey(run.id!, approval)))
          notCarried.deployment_approvals.push(approvalReport(run.id!, approval, 'not_in_file'));
      }
    }
    notePassed('approval_stages');
    const previousRuns = new Map((previous?.deployments?.runs ?? []).map((r) => [r.id, r]));
    for (const { id, run } of runIds) {
      if (sameRun(previousRuns.get(id), run)) continue;
      try {
        await this.deployments.checkImportedRun(actor, id, manager);
      } catch (err) {
        if (err instanceof DomainError) throw runNotRecordable(id, err);
        throw err;
      }
    }

    // Each status must be one POST /v1/items/<ref>/status would have reached from where it was, on the project as
    // imported, or the import is refused (docs/adr/0050); one this server recorded needs no check. Into an empty
    // project the file is the items' own history, so only items depending on an item outside the file are checked.
    notePassed('stage_gates');
    const recordedStatus = new Set(
      (await this.repository.snapshotStatuses(projectId, manager)).map((r) => `${r.ref} ${r.status}`),
    );
    const leansOutside = new Set(
      (doc.dependencies ?? []).filter((d) => !fileRefs.has(d.blocker)).map((d) => d.dependent),
    );
    for (const item of items) {
      const { from, to } = movedFrom.get(item.ref)!;
      if (recordedStatus.has(`${item.ref} ${to}`)) continue;
      if (previous === null && !leansOutside.has(item.ref)) continue;
      try {
        await this.items.assertStatusReachable(idOf.get(item.ref)!, from, manager);
      } catch (err) {
        if (err instanceof DomainError) throw statusNotReachable(item.ref, from, to, err);
        throw err;
      }
    }

    const maxSequence = items.reduce((max, i) => Math.max(max, sequenceOf(i.ref)), 0);
    await this.repository.setNextSequence(
      projectId,
      Math.max(doc.project.next_sequence ?? 1, maxSequence + 1),
      manager,
    );
    const bySequence = new Map(items.map((i) => [sequenceOf(i.ref), idOf.get(i.ref)!]));
    for (const edge of external) {
      const blocker = bySequence.get(edge.sequence);
      if (blocker !== undefined) await this.repository.repointEdge(edge.id, blocker, manager);
    }
    return summary;
  }

  private async pinFor(
    item: DocItem,
    pins: Map<string, { id: number; version: number; definition: WorkflowDefinition }>,
    current: Map<string, { id: number; version: number; definition: WorkflowDefinition }>,
    manager: EntityManager,
  ): Promise<{ id: number; version: number; definition: WorkflowDefinition }> {
    const workflowId = item.workflow_id ?? 'issue';
    if (item.workflow_version !== undefined) {
      const pinned = pins.get(`${workflowId}@${item.workflow_version}`);
      if (pinned) return pinned;
      const row = await this.workflows.findVersionRow(workflowId, item.workflow_version, manager);
      if (!row) {
        throw pinnedWorkflowMissing(item.ref, workflowId, item.workflow_version);
      }
      return { id: row.id, version: row.version, definition: row.definition };
    }
    let latest = current.get(workflowId);
    if (!latest) {
      const row = await this.workflows.current(workflowId, manager);
      latest = { id: row.id, version: row.version, definition: row.definition };
      current.set(workflowId, latest);
    }
    return latest;
  }
}
