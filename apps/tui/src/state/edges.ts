import type { DependencyEdgeWire, DependencyListEntryWire } from '../wire';

export interface DetailEdge {
  side: 'in' | 'out';
  gate_point: string;
  // the other end's ref; null when the blocker no longer resolves to an item
  other: string | null;
  other_title: string | null;
  state: string | null;
  satisfaction: string;
  satisfied: boolean;
  reason: string;
  need: string | null;
  abandoned: boolean;
  environment: string | null;
}

const key = (side: string, other: string | null, gate: string) => `${side}|${other ?? ''}|${gate}`;

export const edgeKey = (e: DetailEdge): string => key(e.side, e.other, e.gate_point);

// Completed by the frontier's view of the unsatisfied edges (the need, an abandoned blocker, the deployed form's
// environment) and by any edge it evaluates at another gate point.
export function detailEdges(
  stored: DependencyListEntryWire[],
  unsatisfiedIn: DependencyEdgeWire[],
  unsatisfiedOut: DependencyEdgeWire[],
): DetailEdge[] {
  const edges = new Map<string, DetailEdge>();
  for (const d of stored) {
    const side = d.direction === 'depends_on' ? 'in' : 'out';
    edges.set(key(side, d.other_item, d.gate_point), {
      side,
      gate_point: d.gate_point,
      other: d.other_item,
      other_title: d.other_title,
      state: d.other_status,
      satisfaction: d.satisfaction,
      satisfied: d.satisfied,
      reason: d.reason,
      need: null,
      abandoned: false,
      environment: null,
    });
  }
  const add = (side: 'in' | 'out', e: DependencyEdgeWire) => {
    const other = side === 'in' ? e.blocker : e.dependent;
    const k = key(side, other, e.gate_point);
    const known = edges.get(k);
    const environment = e.environment ? `${e.environment.name} ${e.environment.delivery_state}` : null;
    edges.set(k, {
      side,
      gate_point: e.gate_point,
      other,
      other_title: known?.other_title ?? (side === 'in' ? e.blocker_title : null),
      state: (side === 'in' ? e.blocker_stage : null) ?? known?.state ?? null,
      satisfaction: e.satisfaction,
      satisfied: false,
      reason: e.reason || known?.reason || '',
      need: e.need || null,
      abandoned: e.blocking_abandoned,
      environment,
    });
  };
  unsatisfiedIn.forEach((e) => add('in', e));
  unsatisfiedOut.forEach((e) => add('out', e));
  return [...edges.values()].sort(
    (a, b) =>
      (a.side === b.side ? 0 : a.side === 'in' ? -1 : 1) ||
      a.gate_point.localeCompare(b.gate_point) ||
      (a.other ?? '').localeCompare(b.other ?? '', undefined, { numeric: true }),
  );
}
