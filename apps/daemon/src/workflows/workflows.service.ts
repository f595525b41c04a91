import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import {
  WorkflowDefinition,
  WorkflowListResponse,
  WorkflowRegisterWire,
  WorkflowVersionWire,
} from '@app/contracts/backlog';

import { AuthenticatedActor, isServerAdmin } from '../auth/actor';
import { forbidden, internalError } from '../common/domain-error';
import { toWorkflowSummary, toWorkflowVersionResponse, WorkflowVersionRow } from './dto/workflows.dto';
import { StageGateRegistry } from './stage-gates';
import { gateTypes, validateWorkflowDefinition } from './workflow-definition';
import { definitionInvalid, unknownGateType, workflowNotFound } from './workflows.errors';
import { WorkflowsRepository } from './workflows.repository';

export { definitionInvalid, workflowNotFound };

@Injectable()
export class WorkflowsService {
  constructor(
    private readonly repository: WorkflowsRepository,
    private readonly gates: StageGateRegistry,
  ) {}

  parseDefinition(raw: unknown, fieldPrefix = ''): WorkflowDefinition {
    const result = validateWorkflowDefinition(raw);
    if (!result.ok) throw definitionInvalid(result.problems, fieldPrefix);
    const unknown = gateTypes(result.definition).filter((t) => !this.gates.has(t));
    if (unknown.length > 0) {
      throw unknownGateType(unknown, this.gates.types());
    }
    return result.definition;
  }

  // A new version every time the definition changes; an identical definition is a no-op.
  async register(actor: AuthenticatedActor, raw: unknown): Promise<WorkflowRegisterWire> {
    // Workflows are server-wide: registering one is server administration.
    if (!isServerAdmin(actor)) {
      throw forbidden('registering a workflow needs a server admin (not confined to one organization)');
    }
    const definition = this.parseDefinition(raw);
    return this.repository.transaction(async (manager) => {
      const { row, created } = await this.registerIn(definition, String(actor.id), manager, true);
      return { ...toWorkflowVersionResponse(row), created };
    });
  }

  // makeCurrent=false (import): an existing version with the same checksum is reused and the workflow's
  // current version is only set when it has none.
  async registerIn(
    definition: WorkflowDefinition,
    createdBy: string,
    manager: EntityManager,
    makeCurrent: boolean,
  ): Promise<{ row: WorkflowVersionRow; created: boolean }> {
    await this.repository.lockWorkflow(definition.id, definition.name, manager);
    if (makeCurrent) {
      const current = await this.repository.findCurrent(definition.id, manager);
      const same = current && (await this.repository.findByChecksum(definition.id, definition, manager));
      if (current && same && same.id === current.id) return { row: current, created: false };
    } else {
      const same = await this.repository.findByChecksum(definition.id, definition, manager);
      if (same) return { row: same, created: false };
    }
    const id = await this.repository.insertVersion(definition, createdBy, manager);
    if (makeCurrent) await this.repository.makeCurrent(definition.id, id, definition.name, manager);
    else await this.repository.setCurrentIfUnset(definition.id, id, manager);
    return { row: (await this.repository.findVersionById(id, manager))!, created: true };
  }

  async list(): Promise<WorkflowListResponse> {
    return { workflows: (await this.repository.list()).map(toWorkflowSummary) };
  }

  async current(workflowId: string, manager?: EntityManager): Promise<WorkflowVersionRow> {
    const row = await this.repository.findCurrent(workflowId, manager);
    if (!row) throw workflowNotFound(workflowId);
    return row;
  }

  async currentDefinition(workflowId: string): Promise<WorkflowVersionWire> {
    return toWorkflowVersionResponse(await this.current(workflowId));
  }

  async version(workflowId: string, version: number): Promise<WorkflowVersionWire> {
    const row = await this.repository.findVersion(workflowId, version);
    if (!row) throw workflowNotFound(workflowId, version);
    return toWorkflowVersionResponse(row);
  }

  async versionById(id: number, manager?: EntityManager): Promise<WorkflowVersionRow> {
    const row = await this.repository.findVersionById(id, manager);
    if (!row) throw internalError(`workflow version ${id} is missing`);
    return row;
  }

  versionsByIds(ids: readonly number[], manager?: EntityManager): Promise<WorkflowVersionRow[]> {
    return this.repository.findVersionsByIds(ids, manager);
  }

  findVersionRow(workflowId: string, version: number, manager?: EntityManager) {
    return this.repository.findVersion(workflowId, version, manager);
  }
}
