import { IsIn, IsInt, IsObject, IsOptional, IsString, MaxLength, Min } from 'class-validator';

import { DEPENDENCY_SOURCES, DependencyWire, GATE_POINTS } from '@app/contracts/backlog';

export class AddDependencyDto {
  @IsString()
  @MaxLength(40)
  blocker!: string;

  @IsOptional() @IsIn(GATE_POINTS) gate_point?: string;
  @IsOptional() @IsString() @MaxLength(200) satisfaction?: string;
  @IsOptional() @IsIn(DEPENDENCY_SOURCES) source?: string;
  @IsOptional() @IsString() @MaxLength(10_000) rationale?: string;
  @IsOptional() @IsObject() evidence?: Record<string, unknown>;
  @IsOptional() @IsInt() @Min(1) session_id?: number;
}

export class ListDependenciesQueryDto {
  @IsOptional() @IsIn(['depends_on', 'blocks', 'both']) direction?: string;
  @IsOptional() @IsIn(GATE_POINTS) gate_point?: string;
}

export class RemoveDependencyQueryDto {
  @IsOptional() @IsIn(GATE_POINTS) gate_point?: string;
}

export interface EdgeRow {
  dependent_item_id: number;
  blocking_item_id: number;
  dependent_ref: string;
  blocker_ref: string | null;
  gate_point: string;
  satisfaction: string;
  source: string;
  session_id: number | null;
  rationale: string;
  evidence_json: string;
  created_at: string;
  other_title?: string | null;
  other_status?: string | null;
  other_sealed?: boolean;
}

export function parseEvidence(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

export function toDependencyResponse(row: EdgeRow): DependencyWire {
  return {
    dependent: row.dependent_ref,
    blocker: row.blocker_ref,
    gate_point: row.gate_point,
    satisfaction: row.satisfaction,
    source: row.source,
    session_id: row.session_id,
    rationale: row.rationale,
    evidence: parseEvidence(row.evidence_json),
    created_at: row.created_at,
  };
}
