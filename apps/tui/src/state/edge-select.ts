import type { KeyAction } from '../keys/keymap';
import { DetailEdge, edgeKey } from './edges';
import type { State, TriageCommand } from './state';

// The selection names the edge, not a position: when the pane's edges reload it stays on its edge, or selects none
// once that is gone.

export function selectedEdge(state: State): DetailEdge | null {
  const c = state.edgeCursor;
  const d = state.detail;
  if (!c || !d || !state.detailOpen || c.ref !== d.ref || !d.edges) return null;
  return d.edges.find((e) => edgeKey(e) === c.key) ?? null;
}

function note(state: State, text: string): State {
  return { ...state, status: { text, tone: 'warn', at: state.now } };
}

export function removeCommand(ref: string, e: DetailEdge): Extract<TriageCommand, { op: 'dep-remove' }> | null {
  if (!e.other) return null;
  return e.side === 'in'
    ? { op: 'dep-remove', dependent: ref, blocker: e.other, gate_point: e.gate_point }
    : { op: 'dep-remove', dependent: e.other, blocker: ref, gate_point: e.gate_point };
}

export function reduceEdgeKey(state: State, action: KeyAction): State | null {
  switch (action) {
    case 'edge_next':
    case 'edge_prev': {
      const d = state.detail;
      if (!state.detailOpen || !d) return note(state, 'open the detail pane (enter) to select an edge');
      const n = d.edges?.length ?? 0;
      if (n === 0) return note(state, d.edges ? `${d.ref} has no dependency edges` : 'edges are loading');
      const held = selectedEdge(state);
      const c = held ? d.edges!.indexOf(held) : action === 'edge_next' ? -1 : n;
      const index = (c + (action === 'edge_next' ? 1 : -1) + n) % n;
      return { ...state, edgeCursor: { ref: d.ref, key: edgeKey(d.edges![index]) }, paneHidden: false };
    }
    case 'edge_remove': {
      const e = selectedEdge(state);
      if (!e) return note(state, 'select an edge first (H / L in the detail pane)');
      const command = removeCommand(state.detail!.ref, e);
      if (!command) return note(state, 'the other end of this edge no longer exists');
      return {
        ...state,
        dialog: {
          kind: 'triage-confirm',
          title: ' Remove dependency ',
          lines: [
            `${command.dependent} no longer waits on ${command.blocker}`,
            `gate point ${e.gate_point} · ${e.satisfaction} · ${e.satisfied ? 'satisfied' : 'unsatisfied'}`,
          ],
          commands: [command],
          focus: 'no',
          undo: false,
        },
      };
    }
    default:
      return null;
  }
}
