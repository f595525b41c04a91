import { ItemWriteKind } from './claims';

// Structural, so the daemon's wire definition passes as it is.
export interface MoveStage {
  id: string;
  terminal?: boolean;
  gates: readonly unknown[];
}

// Abandoning is not completing: a move to one of these is never stage-gated.
export const ABANDON_STAGES: readonly string[] = ['cancelled', 'stopped', 'failed'];

export const STAGE_NOT_IN_WORKFLOW = 'stage_not_in_workflow';

export type StatusMoveDecision =
  | { refuse: typeof STAGE_NOT_IN_WORKFLOW }
  | { move: false }
  // `finishes`: the target is terminal, so the item gives back its claim and the WIP slot it held
  | { move: true; finishes: boolean };

// A move names a stage of the pinned definition; a move to the stage the item is in writes nothing and passes no gate.
export function decideStatusMove(stages: readonly MoveStage[], from: string, to: string): StatusMoveDecision {
  const target = stages.find((s) => s.id === to);
  if (!target) return { refuse: STAGE_NOT_IN_WORKFLOW };
  if (from === to) return { move: false };
  return { move: true, finishes: target.terminal === true };
}

// The stages whose gates a move from `from` to `to` must pass, in the pinned stage order: every stage after `from`
// up to and including `to`. A move backwards passes none; a move out of a terminal stage (a reopen) or from a stage
// the definition does not know starts before the first stage. A move to an abandon stage passes none.
export function crossedStages<S extends MoveStage>(stages: readonly S[], from: string, to: string): S[] {
  if (ABANDON_STAGES.includes(to)) return [];
  const toIndex = stages.findIndex((s) => s.id === to);
  if (toIndex < 0) return [];
  const fromStage = stages.findIndex((s) => s.id === from);
  const fromIndex = fromStage < 0 || stages[fromStage].terminal ? -1 : fromStage;
  const crossed: S[] = [];
  for (let i = fromIndex + 1; i <= toIndex; i++) {
    if (!ABANDON_STAGES.includes(stages[i].id) && stages[i].gates.length > 0) crossed.push(stages[i]);
  }
  return crossed;
}

// The stage a resolve moves to: the one asked, else the resolution's own. A duplicate names what it duplicates.
export const RESOLUTION_STATUS: Readonly<Record<string, string>> = {
  completed: 'done',
  duplicate: 'cancelled',
  wontfix: 'cancelled',
};
export const RESOLUTION_REF_REQUIRED = 'resolution_ref_required';

export type ResolutionDecision = { refuse: typeof RESOLUTION_REF_REQUIRED } | { status: string };

export function decideResolution(input: { resolution: string; status?: string; hasRef: boolean }): ResolutionDecision {
  if (input.resolution === 'duplicate' && !input.hasRef) return { refuse: RESOLUTION_REF_REQUIRED };
  return { status: input.status ?? RESOLUTION_STATUS[input.resolution] };
}

export interface ItemFieldCatalogue {
  structured: readonly string[];
  plainWritable: readonly string[];
  readable: readonly string[];
  notNull: readonly string[];
  operations: Readonly<Record<string, string>>;
}

// Fields that steer an item rather than do its work: open to the team while someone holds the item.
export const TRIAGE_FIELDS: readonly string[] = ['priority', 'owner'];

export type FieldEditDecision =
  | { refuse: 'unknown_field'; fields: readonly string[] }
  | { refuse: 'field_not_writable'; how: string | undefined }
  | { refuse: 'invalid_value'; message: string }
  | { structured: boolean; kind: Extract<ItemWriteKind, 'edit' | 'triage'> };

// Whether `field` is written by `items update` at all, before the item is read: the catalogue decides, and a field
// that must hold a value cannot be cleared. An allowed edit names the claim kind it passes.
export function decideFieldEdit(field: string, value: string | null, catalogue: ItemFieldCatalogue): FieldEditDecision {
  const structured = catalogue.structured.includes(field);
  if (!structured && !catalogue.plainWritable.includes(field)) {
    if (catalogue.readable.includes(field)) return { refuse: 'field_not_writable', how: catalogue.operations[field] };
    return { refuse: 'unknown_field', fields: [...catalogue.structured, ...catalogue.plainWritable] };
  }
  if (value === null && catalogue.notNull.includes(field)) {
    return { refuse: 'invalid_value', message: `${field} cannot be cleared` };
  }
  return { structured, kind: TRIAGE_FIELDS.includes(field) ? 'triage' : 'edit' };
}

export const ITEM_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/;

export type FieldValueDecision =
  | { refuse: 'title_too_long'; length: number; max: number }
  | { refuse: 'invalid_value'; message: string }
  | { value: string | null };

// The value an allowed edit stores, or why not. `titleMax` is the project's policy (asked only for a title); whether
// a deployment flow exists is the daemon's to look up.
export function decideFieldValue(field: string, value: string | null, titleMax?: number): FieldValueDecision {
  if (value === null) return { value: null };
  switch (field) {
    case 'title':
      if (titleMax !== undefined && value.length > titleMax) {
        return { refuse: 'title_too_long', length: value.length, max: titleMax };
      }
      if (value.length === 0) return { refuse: 'invalid_value', message: 'title cannot be empty' };
      return { value };
    case 'priority':
      if (!['high', 'medium', 'low'].includes(value)) {
        return { refuse: 'invalid_value', message: 'priority must be one of high, medium, low' };
      }
      return { value };
    case 'merged_at':
      if (!ITEM_TIMESTAMP.test(value) || Number.isNaN(Date.parse(value))) {
        return { refuse: 'invalid_value', message: 'merged_at must be an ISO 8601 timestamp with a zone' };
      }
      return { value };
    case 'owner':
      if (!/^[0-9]{1,12}$/.test(value)) return { refuse: 'invalid_value', message: 'owner must be an actor id' };
      return { value };
    case 'workflow_posture': {
      let parsed: unknown;
      try {
        parsed = JSON.parse(value);
      } catch {
        parsed = undefined;
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        return { refuse: 'invalid_value', message: 'workflow_posture must be a JSON object' };
      }
      return { value: JSON.stringify(parsed) };
    }
    default:
      return { value };
  }
}
