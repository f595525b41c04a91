import type { DependencyEdgeWire, DependencyListEntryWire } from '../wire';
import { detailEdges } from './edges';
import { flowStages, pipelineOf } from './pipeline';

const stored = (over: Partial<DependencyListEntryWire>): DependencyListEntryWire => ({
  dependent: 'ATL-8',
  blocker: 'ATL-5',
  gate_point: 'activation',
  satisfaction: 'status:done',
  source: 'manual',
  session_id: null,
  rationale: '',
  evidence: {},
  created_at: '2026-01-01T00:00:00.000Z',
  direction: 'depends_on',
  other_item: 'ATL-5',
  other_title: 'Tax rules',
  other_status: 'planned',
  satisfied: false,
  reason: 'ATL-5 is in planned; needs done',
  ...over,
});

const frontierEdge = (over: Partial<DependencyEdgeWire>): DependencyEdgeWire => ({
  blocker: 'ATL-5',
  dependent: 'ATL-8',
  gate_point: 'activation',
  satisfaction: 'status:done',
  rationale: '',
  blocker_resolves: true,
  blocker_stage: 'planned',
  blocker_title: 'Tax rules',
  blocking_terminal: false,
  blocking_abandoned: false,
  reason: 'ATL-5 is in planned; needs done',
  need: 'ATL-5 reaches done',
  environment: null,
  ...over,
});

describe('detailEdges', () => {
  it('should keep satisfied edges, complete unsatisfied ones from the frontier and add edges seen only there', () => {
    const edges = detailEdges(
      [
        stored({}),
        stored({ gate_point: 'closure', other_item: 'ATL-2', other_status: 'done', satisfied: true, reason: 'ok' }),
        stored({ direction: 'blocks', dependent: 'ATL-11', blocker: 'ATL-8', other_item: 'ATL-11', satisfied: true }),
      ],
      [
        frontierEdge({ blocking_abandoned: true }),
        frontierEdge({ gate_point: 'integration', blocker: 'ATL-7', blocker_stage: 'review', need: 'ATL-7 ships' }),
      ],
      [],
    );
    expect(edges.map((e) => [e.side, e.gate_point, e.other, e.satisfied])).toEqual([
      ['in', 'activation', 'ATL-5', false],
      ['in', 'closure', 'ATL-2', true],
      ['in', 'integration', 'ATL-7', false],
      ['out', 'activation', 'ATL-11', true],
    ]);
    expect(edges[0]).toMatchObject({
      need: 'ATL-5 reaches done',
      abandoned: true,
      state: 'planned',
      other_title: 'Tax rules',
    });
    expect(edges[2]).toMatchObject({ state: 'review', need: 'ATL-7 ships' });
  });
});

describe('pipeline', () => {
  it('should read the stages of a flow in both stored forms and the run position from the progress', () => {
    expect(
      flowStages(['build', { environment: 'production', approval: { role: 'admin' }, capabilities: ['kubectl'] }]),
    ).toEqual([
      { name: 'build', approval: false, capabilities: [] },
      { name: 'production', approval: true, capabilities: ['kubectl'] },
    ]);
    const p = pipelineOf(
      'ship',
      'needs-capability',
      {
        item_id: 'ATL-1',
        status: 'release',
        flow_name: 'Ship it',
        run_id: 'r1',
        current_stage: 'staging',
        target_environment: 'production',
        stage_progress: '2/3',
        done_description: null,
        qa_summary: null,
        blocked_reason: null,
        halt: null,
      },
      [],
    );
    expect(p).toMatchObject({ flow: 'Ship it', stage_index: 2, stage_count: 3, deploy_stage: 'needs-capability' });
    expect(pipelineOf('ship', null, null, null)).toMatchObject({ run_id: null, stage_index: null, stages: [] });
  });
});
