import {
  BlockerRow,
  CandidateRow,
  ChangedItemRow,
  EdgeRow,
  FrontierRepository,
  TombstoneRow,
} from '../../apps/daemon/src/frontier/read-path/frontier.repository';
import { generatedRows } from './profile';

type Rows = ReturnType<typeof generatedRows>;

// One generated project's rows in memory, answering the queries FrontierGraphCache makes, so a write's refresh runs the
// cache's own path (applyDelta, the graph step it picks, the state it keeps) without a database. A write is recorded
// as the change query would return it: each changed row once, a deleted edge as a tombstone.
export class MemoryRows {
  private readonly candidates = new Map<number, CandidateRow>();
  private readonly outside = new Map<number, BlockerRow>();
  private readonly edges = new Map<number, EdgeRow>();
  private readonly byDependent = new Map<number, Set<EdgeRow>>();
  private written: { items: Map<number, ChangedItemRow>; edges: Map<number, EdgeRow>; tombstones: TombstoneRow[] } = {
    items: new Map(),
    edges: new Map(),
    tombstones: [],
  };

  constructor(private readonly rows: Rows) {
    for (const row of rows.candidates) this.candidates.set(row.id, row);
    for (const row of rows.outside) this.outside.set(row.id, row);
    for (const edge of rows.edges) this.addEdge(edge);
  }

  private addEdge(edge: EdgeRow): void {
    this.edges.set(edge.id!, edge);
    let set = this.byDependent.get(edge.dependent);
    if (set === undefined) this.byDependent.set(edge.dependent, (set = new Set()));
    set.add(edge);
  }

  edgesOf(dependent: number): EdgeRow[] {
    return [...(this.byDependent.get(dependent) ?? [])];
  }

  writeItem(row: CandidateRow): void {
    this.candidates.set(row.id, row);
    this.written.items.set(row.id, { ...row, project: 'bench', prefix: 'BN' });
  }

  writeEdge(edge: EdgeRow): void {
    this.addEdge(edge);
    this.written.edges.set(edge.id!, edge);
  }

  deleteEdge(edge: EdgeRow): void {
    this.edges.delete(edge.id!);
    this.byDependent.get(edge.dependent)?.delete(edge);
    this.written.tombstones.push({ table_name: 'item_dependencies', row_id: String(edge.id) });
  }

  private sortedEdgesOf(ids: Iterable<number>): EdgeRow[] {
    const edges: EdgeRow[] = [];
    for (const id of ids) for (const edge of this.byDependent.get(id) ?? []) edges.push(edge);
    return edges.sort((a, b) => a.id! - b.id!);
  }

  repository(): FrontierRepository {
    const candidates = () => [...this.candidates.values()].sort((a, b) => a.id - b.id);
    const blockerRow = (id: number): BlockerRow[] => {
      const outside = this.outside.get(id);
      const candidate = this.candidates.get(id);
      if (outside !== undefined) return [outside];
      return candidate === undefined ? [] : [{ ...candidate, project: 'bench', prefix: 'BN' }];
    };
    return {
      watermark: async () => '1',
      findCandidates: async () => candidates(),
      findEdges: async () => this.sortedEdgesOf(this.candidates.keys()),
      findOutsideBlockers: async () => {
        const named = new Set(this.sortedEdgesOf(this.candidates.keys()).map((e) => e.blocker));
        return [...named]
          .filter((id) => !this.candidates.has(id) && this.outside.has(id))
          .sort((a, b) => a - b)
          .map((id) => this.outside.get(id)!);
      },
      findDeploymentHalts: async () => [],
      projectsOutsideOrganizationOf: async () => [],
      findWorkflowVersions: async (ids: readonly number[]) =>
        ids.map((id) => {
          const stages = this.rows.workflows.get(id)!;
          return {
            id,
            workflow_id: id === 2 ? 'epic' : 'issue',
            definition: { stages: stages.order.map((s) => ({ id: s })) },
          };
        }),
      findChangesSince: async () => {
        const { items, edges, tombstones } = this.written;
        this.written = { items: new Map(), edges: new Map(), tombstones: [] };
        return {
          watermark: '1',
          items: [...items.values()],
          edges: [...edges.values()],
          tombstones,
          delivery: false,
          pruned: false,
        };
      },
      findEdgesOfDependents: async (ids: readonly number[]) => this.sortedEdgesOf(ids),
      findItemsById: async (ids: readonly number[]) => ids.flatMap(blockerRow),
    } as unknown as FrontierRepository;
  }
}
