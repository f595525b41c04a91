import { Injectable } from '@nestjs/common';

import { AuthenticatedActor } from '../auth/actor';
import { DomainError } from '../common/domain-error';
import { ProjectAccessService } from '../projects/project-access.service';
import { RefsService } from '../refs/refs.service';
import { DeploymentsRepository } from './deployments.repository';
import {
  CreateEnvironmentDto,
  CreateFlowDto,
  CreateRunDto,
  EnvironmentWire,
  FlowWire,
  RunRow,
  RunWire,
  toRunResponse,
  UpdateRunDto,
} from './dto/deployments.dto';

const flowNotFound = (id: string) => new DomainError('deployment_flow_not_found', `no deployment flow ${id}`, 404);

@Injectable()
export class DeploymentsService {
  constructor(
    private readonly repository: DeploymentsRepository,
    private readonly access: ProjectAccessService,
    private readonly refs: RefsService,
  ) {}

  async createFlow(actor: AuthenticatedActor, dto: CreateFlowDto): Promise<FlowWire> {
    await this.access.assertProject(actor, dto.project);
    const inserted = await this.repository.insertFlow({
      id: dto.id,
      project: dto.project,
      name: dto.name,
      stages: dto.stages,
      target_tier: dto.target_tier ?? null,
      done_description: dto.done_description ?? null,
      active: dto.active ?? true,
      closing: dto.closing ?? false,
    });
    if (!inserted) throw new DomainError('deployment_flow_exists', `deployment flow ${dto.id} already exists`, 409);
    return (await this.repository.flow(dto.id))!;
  }

  async flows(actor: AuthenticatedActor, project: string): Promise<{ flows: FlowWire[] }> {
    await this.access.assertProject(actor, project);
    return { flows: await this.repository.flows(project) };
  }

  async createEnvironment(actor: AuthenticatedActor, dto: CreateEnvironmentDto): Promise<EnvironmentWire> {
    await this.access.assertProject(actor, dto.project);
    if (dto.flow_id !== undefined) {
      const flow = await this.repository.flow(dto.flow_id);
      if (!flow || flow.project !== dto.project) throw flowNotFound(dto.flow_id);
    }
    const inserted = await this.repository.insertEnvironment({
      project: dto.project,
      name: dto.name,
      tier: dto.tier ?? null,
      flow_id: dto.flow_id ?? null,
    });
    if (!inserted) {
      throw new DomainError('environment_exists', `project ${dto.project} already has an environment ${dto.name}`, 409);
    }
    return (await this.repository.environment(dto.project, dto.name))!;
  }

  async environments(actor: AuthenticatedActor, project: string): Promise<{ environments: EnvironmentWire[] }> {
    await this.access.assertProject(actor, project);
    return { environments: await this.repository.environments(project) };
  }

  async retireEnvironment(actor: AuthenticatedActor, project: string, name: string): Promise<EnvironmentWire> {
    await this.access.assertProject(actor, project);
    if (!(await this.repository.retireEnvironment(project, name))) {
      throw new DomainError('environment_not_found', `project ${project} has no environment ${name}`, 404);
    }
    return (await this.repository.environment(project, name))!;
  }

  async createRun(actor: AuthenticatedActor, dto: CreateRunDto): Promise<RunWire> {
    await this.access.assertProject(actor, dto.project);
    const resolved = await this.access.resolveItems(actor, dto.items);
    const ids = [...new Set(dto.items.map((r) => resolved.get(r)!.id))];
    let stageCount = dto.stage_count;
    if (dto.flow_id !== undefined) {
      const flow = await this.repository.flow(dto.flow_id);
      if (!flow || flow.project !== dto.project) throw flowNotFound(dto.flow_id);
      stageCount ??= flow.stages.length;
    }
    const run = await this.repository.transaction(async (manager) => {
      const id = await this.repository.insertRun(
        {
          project: dto.project,
          flow_id: dto.flow_id ?? null,
          environment: dto.environment,
          status: dto.status ?? 'running',
          current_stage: dto.current_stage ?? null,
          stage_index: dto.stage_index ?? 0,
          stage_count: stageCount ?? 0,
          items: ids,
          qa_summary: dto.qa_summary ?? null,
          blocked_reason: dto.blocked_reason ?? null,
        },
        manager,
      );
      const row = (await this.repository.run(id, manager))!;
      await this.repository.cacheDeployStage(row, manager);
      return row;
    });
    return this.toWire(run);
  }

  async updateRun(actor: AuthenticatedActor, id: string, dto: UpdateRunDto): Promise<RunWire> {
    const existing = await this.repository.run(id);
    if (!existing || !(await this.access.canSee(actor, [existing.project]))) {
      throw new DomainError('deployment_run_not_found', `no deployment run ${id}`, 404);
    }
    const run = await this.repository.transaction(async (manager) => {
      await this.repository.updateRun(id, { ...dto }, manager);
      const row = (await this.repository.run(id, manager))!;
      await this.repository.cacheDeployStage(row, manager);
      return row;
    });
    return this.toWire(run);
  }

  async runs(actor: AuthenticatedActor, project: string): Promise<{ runs: RunWire[] }> {
    await this.access.assertProject(actor, project);
    const rows = await this.repository.runs(project);
    const refs = await this.refs.refsOf([...new Set(rows.flatMap((r) => r.carried_items))]);
    return { runs: rows.map((r) => toRunResponse(r, refs)) };
  }

  private async toWire(run: RunRow): Promise<RunWire> {
    return toRunResponse(run, await this.refs.refsOf(run.carried_items));
  }
}
