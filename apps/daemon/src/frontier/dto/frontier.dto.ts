import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';

import type { ExplainResponse, FrontierItemWire, RankNeighbourWire } from '@app/contracts';
import { FrontierComputation, FrontierExplanation, FrontierItem, PRIORITIES, RankNeighbour } from '@app/core';

import { toBool, toInt } from '../../common/transforms';
import { toFrontierItemWire } from '../wire/frontier.mapper';

export const MAX_WIP_CAP = 100_000;

export class FrontierQueryDto {
  @IsOptional() @IsString() @MaxLength(63) project?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'wip_cap must be a whole number' })
  @Min(0)
  @Max(MAX_WIP_CAP)
  wip_cap?: number;
}

export const LIST_GATE_POINTS = ['activation', 'integration', 'closure'] as const;

export class FrontierListQueryDto extends FrontierQueryDto {
  @IsOptional() @IsIn(LIST_GATE_POINTS) gate_point?: string;
  @IsOptional() @IsString() @MaxLength(16) adapter?: string;
  @IsOptional() @IsIn(PRIORITIES) priority?: string;
  @IsOptional() @Matches(/^[A-Za-z][A-Za-z0-9]{0,15}-[0-9]{1,9}$/) blocker?: string;
  @IsOptional() @Matches(/^[A-Za-z][A-Za-z0-9]{0,15}-[0-9]{1,9}$/) dependent?: string;
  @IsOptional() @Transform(toBool) abandoned?: boolean;
  @IsOptional() @IsIn(['ready', 'blocked', 'frozen', 'edges']) only?: string;
}

// The wire shapes live in libs/contracts; re-exported for the daemon's frontier feature.
export type {
  DependencyEdgeWire,
  ExplainResponse,
  FrontierListResponse,
  RankNeighbourWire,
  UnsatisfiedFactWire,
} from '@app/contracts';

export function toWireList(
  items: readonly FrontierItem[],
  refOf: (id: number) => string | undefined,
): FrontierItemWire[] {
  const out = new Array<FrontierItemWire>(items.length);
  for (let i = 0; i < items.length; i++) out[i] = toFrontierItemWire(items[i], refOf);
  return out;
}

function toNeighbourWire(n: RankNeighbour | null): RankNeighbourWire | null {
  if (!n) return null;
  return {
    item_id: n.ref,
    position: n.position,
    deciding_key: n.deciding_key,
    item_value: n.item_value,
    neighbour_value: n.neighbour_value,
    summary: n.summary,
  };
}

export function toExplainResponse(
  explanation: FrontierExplanation,
  context: {
    ref: string;
    project: string;
    status: string;
    item: FrontierItem | undefined;
    computation: FrontierComputation;
    refOf: (id: number) => string | undefined;
  },
): ExplainResponse {
  const refs = (ids: readonly number[]) => ids.map((id) => context.refOf(id) ?? `(missing item)`);
  const item = context.item;
  return {
    item_id: context.ref,
    project: context.project,
    status: context.status,
    bucket: explanation.bucket,
    position: explanation.position,
    adapter: explanation.adapter,
    summary: explanation.summary,
    operator_block: explanation.operator_block,
    unsatisfied: explanation.unsatisfied.map((u) => ({
      blocker: u.blocker_ref,
      satisfaction: u.satisfaction,
      form: u.form.kind,
      state: u.state,
      blocker_bucket: u.blocker_bucket,
      reason: u.reason,
      need: u.need,
    })),
    critical_path: refs(explanation.critical_path),
    unblock_roots: refs(explanation.unblock_roots),
    stuck: refs(explanation.stuck),
    ranking:
      item && explanation.bucket === 'runnable'
        ? {
            keys: {
              priority: item.priority,
              downstream_depth: item.downstream_depth,
              unblocks_count: item.unblocks_count,
              lifecycle_stage: item.status,
              created_at: toFrontierItemWire(item, context.refOf).created_at,
            },
            above: toNeighbourWire(explanation.above),
            below: toNeighbourWire(explanation.below),
          }
        : null,
    conduct: explanation.conduct,
    wip_cap: context.computation.wip_cap,
    wip_active: context.computation.wip_active,
  };
}
