import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import {
  ItemDetailWire,
  ItemFieldWire,
  ItemListWire,
  ItemProgressWire,
  ItemSectionRemovedResponse,
  ItemSectionResponse,
  ItemWire,
  ItemWorkflowWire,
  renderEntrypoint,
  STRUCTURED_FIELDS,
  WorkflowDefinition,
} from '@app/contracts/backlog';
import { decideFieldEdit, decideFieldValue, decideResolution, decideStatusMove, ItemFieldCatalogue } from '@app/core';

import { AuthenticatedActor } from '../auth/actor';
import { CommentsService } from '../comments/comments.service';
import { lastStatement } from '../database/pipelined-transactions';
import { haltOf } from '../deployments/dto/deployments.dto';
import { ItemTarget, ProjectAccessService, projectNotFound, targets } from '../projects/project-access.service';
import { titleMaxLength } from '../projects/project-policy';
import { itemNotFound as noSuchItem } from '../refs/refs.errors';
import type { ResolvedRef } from '../refs/refs.service';
import { RulebookService } from '../rulebook/rulebook.service';
import { StageGateItem, StageGateRegistry } from '../workflows/stage-gates';
import { stageOf } from '../workflows/workflow-definition';
import { WorkflowsService } from '../workflows/workflows.service';
import {
  CreateItemDto,
  ItemDetailRow,
  ItemRow,
  ListItemsQueryDto,
  renderItemBody,
  ResolveDto,
  SECTION_NAME_PATTERN,
  SectionRow,
  toItemResponse,
  toProgressResponse,
  toSectionResponse,
  UpsertSectionDto,
} from './dto/items.dto';
import {
  CREATE_COPIED_FIELDS,
  FIELD_OPERATIONS,
  NOT_NULL_FIELDS,
  PLAIN_WRITABLE_FIELDS,
  NewItem,
  READABLE_FIELDS,
} from './item-fields';
import {
  fieldNotWritable,
  invalidSectionName,
  invalidValue,
  itemDeploymentFlowNotFound,
  itemNotFound,
  resolutionRefRequired,
  sectionNotFound,
  stageNotInWorkflow,
  titleTooLong,
  unknownField,
} from './items.errors';
import { ItemsRepository, LockedItem } from './items.repository';

export const DEFAULT_WORKFLOW = 'issue';
export const DEFAULT_LIST_LIMIT = 100;

const FIELD_CATALOGUE: ItemFieldCatalogue = {
  structured: STRUCTURED_FIELDS,
  plainWritable: PLAIN_WRITABLE_FIELDS,
  readable: READABLE_FIELDS,
  notNull: NOT_NULL_FIELDS,
  operations: FIELD_OPERATIONS,
};

// A create checks its title against the policy it read, and inserts while that policy stands; after this many policy
// changes in between, against the policy its insert locked.
const CREATE_ATTEMPTS_AGAINST_SEEN_POLICY = 2;

export function assertTitle(title: string, policy: Record<string, unknown>): void {
  const max = titleMaxLength(policy);
  if (title.length > max) throw titleTooLong(title.length, max);
}

@Injectable()
export class ItemsService {
  constructor(
    private readonly repository: ItemsRepository,
    private readonly access: ProjectAccessService,
    private readonly workflows: WorkflowsService,
    private readonly gates: StageGateRegistry,
    private readonly rulebook: RulebookService,
    private readonly comments: CommentsService,
  ) {}

  rowsOfProject(project: string): Promise<ItemRow[]> {
    return this.repository.findByProject(project);
  }

  rowsByIds(ids: readonly number[]): Promise<ItemRow[]> {
    return this.repository.findByIds(ids);
  }

  sectionsOf(ids: readonly number[]): Promise<SectionRow[]> {
    return this.repository.sectionsFor(ids);
  }

  insertRows(items: readonly NewItem[], manager: EntityManager): Promise<number[]> {
    return this.repository.insertMany(items, manager);
  }

  // The title is checked against the policy read before the transaction, and the insert takes the project's next
  // sequence only while that policy stands: a plain create's insert then goes with its COMMIT, and the project's row,
  // which every create of the project waits for, is locked for that round trip alone. A policy changed in between
  // (the insert found no row) is read again; after that, the create checks the policy its insert locked.
  async create(actor: AuthenticatedActor, dto: CreateItemDto): Promise<ItemDetailWire> {
    for (let attempt = 1; ; attempt++) {
      const policy = await this.access.projectPolicy(actor, dto.project);
      const seen = attempt <= CREATE_ATTEMPTS_AGAINST_SEEN_POLICY ? policy : null;
      if (seen !== null) assertTitle(dto.title, JSON.parse(seen) as Record<string, unknown>);
      const created = await this.insertItem(actor, dto, seen);
      if (created !== null) return created;
    }
  }

  // null: the project's policy is no longer `seen` (nothing was written)
  private async insertItem(
    actor: AuthenticatedActor,
    dto: CreateItemDto,
    seen: string | null,
  ): Promise<ItemDetailWire | null> {
    const { id, answer } = await this.repository.transaction(async (manager) => {
      const version = await this.workflows.current(dto.workflow ?? DEFAULT_WORKFLOW, manager);
      const definition = version.definition;
      const status = dto.status ?? definition.initial_stage;
      if ('refuse' in decideStatusMove(definition.stages, definition.initial_stage, status)) {
        throw stageNotInWorkflow(status, definition, version.version);
      }
      if (
        dto.deployment_flow !== undefined &&
        !(await this.repository.flowExists(dto.project, dto.deployment_flow, manager))
      ) {
        throw itemDeploymentFlowNotFound(dto.project, dto.deployment_flow);
      }
      const values: Record<string, string | number | null> = {};
      for (const key of CREATE_COPIED_FIELDS) {
        if (dto[key] !== undefined) values[key] = dto[key] as string | number;
      }
      if (dto.workflow_posture !== undefined) values.workflow_posture = JSON.stringify(dto.workflow_posture);
      if (STRUCTURED_FIELDS.some((f) => dto[f] !== undefined)) values.spec_updated_by = String(actor.id);
      if (values.blocked === 1 && values.blocked_reason === undefined) values.blocked_reason = 'blocked at creation';
      const stamps = values.spec_updated_by !== undefined;
      const moves = status !== definition.initial_stage;
      const inserted = await this.repository.insertNext(
        {
          project: dto.project,
          title: dto.title,
          workflowId: definition.id,
          workflowVersionId: version.id,
          status: definition.initial_stage,
          source: String(actor.id),
          values,
        },
        manager,
        seen === null ? null : { policy: seen, last: !stamps && !moves },
      );
      if (inserted === null) {
        if (seen !== null) return { id: null, answer: null };
        throw projectNotFound(dto.project);
      }
      // Against the policy the insert's own statement read (no round trip of its own): a refusal rolls it back.
      if (seen === null) assertTitle(dto.title, inserted.project_policy ?? {});
      if (stamps) await this.repository.stampSpecUpdated(inserted.id, manager);
      // A create straight into a later stage passes that stage's gates like any status write.
      if (moves) {
        const row = (await this.repository.lock(inserted.id, manager))!;
        await this.moveStatus(row, status, definition, version.version, manager, true);
      }
      return { id: inserted.id, answer: stamps || moves ? null : inserted };
    });
    if (id === null) return null;
    return answer ? this.toDetail(answer) : this.detail(id);
  }

  async list(actor: AuthenticatedActor, query: ListItemsQueryDto): Promise<ItemListWire> {
    const projects = await this.access.visibleProjects(actor);
    const limit = query.limit ?? DEFAULT_LIST_LIMIT;
    const offset = query.offset ?? 0;
    const rows = await this.repository.list({
      projects,
      project: query.project,
      statuses: query.status?.split(','),
      priority: query.priority,
      blocked: query.blocked === undefined ? undefined : Number(query.blocked),
      frozen: query.frozen === undefined ? undefined : Number(query.frozen),
      workflow: query.workflow,
      text: query.q,
      claimed: query.claimed === undefined ? undefined : query.claimed === '1',
      limit,
      offset,
    });
    const items = await this.toWires(rows);
    return { items, total: rows.length > 0 ? Number(rows[0].total) : 0, limit, offset };
  }

  async get(actor: AuthenticatedActor, ref: string): Promise<ItemDetailWire> {
    const { id } = await this.access.resolveItem(actor, ref);
    return this.detail(id);
  }

  async getField(actor: AuthenticatedActor, ref: string, field: string): Promise<ItemFieldWire> {
    if (!READABLE_FIELDS.includes(field)) throw unknownField(field, READABLE_FIELDS);
    const item = await this.get(actor, ref);
    return { item_id: item.item_id, field, value: item[field as keyof ItemDetailWire] };
  }

  async updateField(
    actor: AuthenticatedActor,
    ref: string,
    field: string,
    value: string | null,
    force = false,
  ): Promise<ItemDetailWire> {
    const edit = decideFieldEdit(field, value, FIELD_CATALOGUE);
    if ('refuse' in edit) {
      if (edit.refuse === 'unknown_field') throw unknownField(field, edit.fields);
      if (edit.refuse === 'field_not_writable') throw fieldNotWritable(field, edit.how);
      throw invalidValue(field, edit.message);
    }
    const target = await this.access.itemTarget(actor, ref);
    return this.repository.transaction(async (manager) => {
      const { item, row } = await this.lockTarget(target, manager);
      await this.rulebook.checkClaim(manager, actor, item, edit.kind, force, row);
      const checked = await this.checkFieldValue(row, field, value, manager);
      if (field === 'merged_at' && checked !== null) {
        const version = await this.workflows.versionById(row.workflow_version_id, manager);
        await this.gates.checkMergeRecorded({
          item: await this.gateItem(row, manager),
          definition: version.definition,
          manager,
        });
      }
      const structured = edit.structured ? String(actor.id) : null;
      return this.toDetail(await this.repository.updateField(row.id, field, checked, structured, manager));
    });
  }

  // The item a write names, locked with its live claim, if the caller sees its project (else it does not exist).
  private async lockTarget(target: ItemTarget, manager: EntityManager) {
    const row = await this.repository.lockWithClaim(target, manager);
    if (!row || !targets(target, row.project)) throw noSuchItem(target.ref);
    const item: ResolvedRef = { id: row.id, ref: row.ref, project: row.project };
    return { item, row };
  }

  private async checkFieldValue(row: LockedItem, field: string, value: string | null, manager: EntityManager) {
    const titleMax = field === 'title' && value !== null ? titleMaxLength(row.project_policy ?? {}) : undefined;
    const decision = decideFieldValue(field, value, titleMax);
    if ('refuse' in decision) {
      throw decision.refuse === 'title_too_long'
        ? titleTooLong(decision.length, decision.max)
        : invalidValue(field, decision.message);
    }
    if (field === 'deployment_flow' && decision.value !== null) {
      if (!(await this.repository.flowExists(row.project, decision.value, manager))) {
        throw itemDeploymentFlowNotFound(row.project, decision.value);
      }
    }
    return decision.value;
  }

  async setStatus(actor: AuthenticatedActor, ref: string, status: string, force = false): Promise<ItemDetailWire> {
    const target = await this.access.itemTarget(actor, ref);
    const id = await this.repository.transaction(async (manager) => {
      const { item, row } = await this.lockTarget(target, manager);
      await this.rulebook.checkClaim(manager, actor, item, 'status', force, row);
      const version = await this.workflows.versionById(row.workflow_version_id, manager);
      await this.moveStatus(row, status, version.definition, version.version, manager, true);
      return row.id;
    });
    return this.detail(id);
  }

  // `last`: the move is its transaction's last work, its last statement takes the COMMIT (ADR 0101).
  async moveStatus(
    row: ItemRow,
    status: string,
    definition: WorkflowDefinition,
    version: number,
    manager: EntityManager,
    last = false,
  ): Promise<void> {
    const move = decideStatusMove(definition.stages, row.status, status);
    if ('refuse' in move) throw stageNotInWorkflow(status, definition, version);
    if (!move.move) return;
    await this.gates.check({
      item: await this.gateItem(row, manager),
      fromStage: row.status,
      toStage: status,
      definition,
      manager,
    });
    const ends = (send: () => Promise<unknown>) => (last ? lastStatement(manager, send) : send());
    if (!move.finishes) {
      await ends(() => this.repository.updateStatus(row.id, status, manager));
      return;
    }
    await this.repository.updateStatus(row.id, status, manager);
    await ends(() => this.rulebook.releaseFinished(manager, row.id));
  }

  // Transfer's import: the file's status must be one the status route's gates pass from `from`; throws the refusal.
  async assertStatusReachable(itemId: number, from: string, manager: EntityManager): Promise<void> {
    const row = await this.repository.lock(itemId, manager);
    if (!row || row.status === from) return;
    const version = await this.workflows.versionById(row.workflow_version_id, manager);
    await this.gates.check({
      item: await this.gateItem({ ...row, status: from }, manager),
      fromStage: from,
      toStage: row.status,
      definition: version.definition,
      manager,
    });
  }

  private async gateItem(row: ItemRow, manager: EntityManager): Promise<StageGateItem> {
    const sections = await this.repository.sectionsFor([row.id], manager);
    return {
      id: row.id,
      ref: row.ref,
      project: row.project,
      status: row.status,
      workflowId: row.workflow_id,
      workflowVersionId: row.workflow_version_id,
      title: row.title,
      spec: row.spec,
      body: row.body,
      renderedBody: renderItemBody(row, sections),
      dbMutationProfile: row.db_mutation_profile,
      dbCompatibilityAttestation: row.db_compatibility_attestation,
      frozen: row.frozen === 1,
      blocked: row.blocked === 1,
    };
  }

  async block(actor: AuthenticatedActor, ref: string, reason: string): Promise<ItemDetailWire> {
    const target = await this.access.itemTarget(actor, ref);
    return this.flagged(target, await this.repository.setBlocked(target, target.projects, reason));
  }

  async unblock(actor: AuthenticatedActor, ref: string): Promise<ItemDetailWire> {
    const target = await this.access.itemTarget(actor, ref);
    return this.flagged(target, await this.repository.setBlocked(target, target.projects, null));
  }

  async setFrozen(actor: AuthenticatedActor, ref: string, frozen: boolean): Promise<ItemDetailWire> {
    const target = await this.access.itemTarget(actor, ref);
    return this.flagged(target, await this.repository.setFrozen(target, target.projects, frozen));
  }

  private flagged(target: ItemTarget, row: ItemDetailRow | null): ItemDetailWire {
    if (!row) throw noSuchItem(target.ref);
    return this.toDetail(row);
  }

  async resolve(actor: AuthenticatedActor, ref: string, dto: ResolveDto): Promise<ItemDetailWire> {
    const target = await this.access.itemTarget(actor, ref);
    const resolution = decideResolution({
      resolution: dto.resolution,
      status: dto.status,
      hasRef: Boolean(dto.resolution_ref),
    });
    if ('refuse' in resolution) throw resolutionRefRequired();
    const other = dto.resolution_ref ? await this.access.resolveItem(actor, dto.resolution_ref) : null;
    const id = await this.repository.transaction(async (manager) => {
      const { item, row } = await this.lockTarget(target, manager);
      if (other?.id === row.id) throw invalidValue('resolution_ref', 'an item cannot resolve as a duplicate of itself');
      await this.rulebook.checkClaim(manager, actor, item, 'resolve', dto.force ?? false, row);
      const version = await this.workflows.versionById(row.workflow_version_id, manager);
      const { status } = resolution;
      await this.moveStatus(row, status, version.definition, version.version, manager);
      const values = {
        status,
        resolution: dto.resolution,
        ref: other?.ref ?? null,
        comment: dto.resolution_comment ?? null,
      };
      await lastStatement(manager, () => this.repository.resolve(row.id, values, manager));
      return row.id;
    });
    return this.detail(id);
  }

  async upsertSection(
    actor: AuthenticatedActor,
    ref: string,
    name: string,
    dto: UpsertSectionDto,
  ): Promise<ItemSectionResponse> {
    if (!SECTION_NAME_PATTERN.test(name)) {
      throw invalidSectionName();
    }
    const target = await this.access.itemTarget(actor, ref);
    const item = await this.repository.transaction(async (manager) => {
      const { item, row } = await this.lockTarget(target, manager);
      await this.rulebook.checkClaim(manager, actor, item, 'edit', dto.force ?? false, row);
      await this.repository.upsertSection(item.id, name, dto.content, dto.ordering, manager);
      return item;
    });
    const sections = await this.repository.sectionsFor([item.id]);
    return { item_id: item.ref, section: toSectionResponse(sections.find((s) => s.section_name === name)!) };
  }

  async deleteSection(
    actor: AuthenticatedActor,
    ref: string,
    name: string,
    force = false,
  ): Promise<ItemSectionRemovedResponse> {
    const target = await this.access.itemTarget(actor, ref);
    const { item, removed } = await this.repository.transaction(async (manager) => {
      const { item, row } = await this.lockTarget(target, manager);
      await this.rulebook.checkClaim(manager, actor, item, 'edit', force, row);
      return { item, removed: await this.repository.deleteSection(item.id, name, manager) };
    });
    if (!removed) throw sectionNotFound(item.ref, name);
    return { item_id: item.ref, removed };
  }

  async progress(actor: AuthenticatedActor, ref: string): Promise<ItemProgressWire> {
    const resolved = await this.access.resolveItem(actor, ref);
    const row = await this.repository.progress(resolved.id);
    const halt = row!.run_id ? await this.repository.runHalt(row!.run_id) : null;
    return toProgressResponse(resolved.ref, row!, halt ? haltOf(halt) : null);
  }

  async workflow(actor: AuthenticatedActor, ref: string): Promise<ItemWorkflowWire> {
    const resolved = await this.access.resolveItem(actor, ref);
    const row = (await this.repository.findById(resolved.id))!;
    const version = await this.workflows.versionById(row.workflow_version_id);
    const stage = stageOf(version.definition, row.status);
    return {
      item_id: row.ref,
      workflow_id: row.workflow_id,
      workflow_version: version.version,
      workflow_version_id: version.id,
      status: row.status,
      stage: stage ? { ...stage, entrypoint_rendered: renderEntrypoint(stage.entrypoint, row.ref) } : null,
      definition: version.definition,
    };
  }

  async detail(id: number, manager?: EntityManager): Promise<ItemDetailWire> {
    const found = await this.repository.findDetail(id, manager);
    if (!found) throw itemNotFound(`#${id}`);
    return this.toDetail(found);
  }

  private toDetail(found: ItemDetailRow): ItemDetailWire {
    const { sections: rows, recent_comments: recent, comment_count: count, ...row } = found;
    const sections = rows.map(toSectionResponse);
    return { ...toItemResponse(row, sections), sections, ...this.comments.recentOf(row.ref, recent, count) };
  }

  async toWires(rows: readonly ItemRow[], manager?: EntityManager): Promise<ItemWire[]> {
    const sections = await this.repository.sectionsFor(
      rows.map((r) => r.id),
      manager,
    );
    const byItem = new Map<number, SectionRow[]>();
    for (const s of sections) byItem.set(s.item_id, [...(byItem.get(s.item_id) ?? []), s]);
    return rows.map((r) => toItemResponse(r, byItem.get(r.id) ?? []));
  }
}
