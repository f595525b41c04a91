import { CHARGE_RELEVANT_STATUSES, isTerminalStatus, TERMINAL_STATUSES } from '../../libs/core/src';
import { DependencyFactsService } from '../../apps/daemon/src/dependencies/dependency-facts.service';
import { FrontierGraphCache, graphSize } from '../../apps/daemon/src/frontier/read-path/frontier-graph-cache';
import { FrontierService } from '../../apps/daemon/src/frontier/read-path/frontier.service';
import {
  ChangedItemRow,
  EdgeRow,
  FrontierRepository,
  ProjectRow,
} from '../../apps/daemon/src/frontier/read-path/frontier.repository';
import { generateBacklog } from '../frontier/generate';

// What one cached frontier graph retains, by size: the heap after a full GC with K projects of n items loaded,
// computed and serialized as a frontier notice does (FrontierService.frontierBody), less the heap before, per project
// and per unit of the graph cache's budget (candidates + edges + outside blockers). The rows come from the frontier
// bench's generator through an in-memory repository (no database).
//
//   node --expose-gc -r ts-node/register/transpile-only -r tsconfig-paths/register bench/hosted/graph-size.ts 1000:50,10000:5,100000:1

// the default workflow's stages, terminal ones last
const STAGES = [...CHARGE_RELEVANT_STATUSES, ...TERMINAL_STATUSES];

function projectRows(p: number, n: number) {
  const { items, edges } = generateBacklog(n, 1000 + p);
  const project = `p${p}`;
  const base = p * 10_000_000;
  const rows: ChangedItemRow[] = items.map((spec, i) => ({
    id: base + i + 1,
    prefix: `P${p}`,
    seq: i + 1,
    title: spec.title!,
    status: spec.status!,
    priority: spec.priority!,
    project,
    workflow_id: spec.workflow!,
    workflow_version_id: spec.workflow === 'epic' ? 2 : 1,
    frozen: spec.frozen ? 1 : 0,
    blocked: spec.blocked ? 1 : 0,
    blocked_reason: null,
    created_at: spec.createdAt!.replace('T', ' ').replace('Z', ''),
    merged_at: null,
  }));
  const edgeRows: EdgeRow[] = edges.map((e, k) => ({
    id: base + k + 1,
    blocker: rows[e.blocker].id,
    dependent: rows[e.dependent].id,
    satisfaction: e.satisfaction,
    g: 'activation',
    r: '',
  }));
  return {
    project: { id: project, public_item_prefix: `P${p}`, policy: { wip_cap: 30 } } as never as ProjectRow,
    rows,
    edgeRows,
  };
}

// rows with strings of their own, as a read from the database gives them
function fresh<T>(rows: T[]): T[] {
  return JSON.parse(JSON.stringify(rows)) as T[];
}

function repositoryOver(all: Map<string, ReturnType<typeof projectRows>>): FrontierRepository {
  const candidates = (project: string) => all.get(project)!.rows.filter((r) => !isTerminalStatus(r.status));
  const edgesOf = (project: string) => {
    const ids = new Set(candidates(project).map((r) => r.id));
    return all.get(project)!.edgeRows.filter((e) => ids.has(e.dependent));
  };
  return {
    watermark: async () => '1',
    findCandidates: async (project: string) => fresh(candidates(project)),
    findEdges: async (project: string) => fresh(edgesOf(project)),
    findOutsideBlockers: async (project: string) => {
      const byId = new Map(all.get(project)!.rows.map((r) => [r.id, r]));
      const ids = [...new Set(edgesOf(project).map((e) => e.blocker))].filter((id) =>
        isTerminalStatus(byId.get(id)!.status),
      );
      return fresh(ids.map((id) => byId.get(id)!));
    },
    findDeploymentHalts: async () => [],
    projectsOutsideOrganizationOf: async () => [],
    findWorkflowVersions: async (ids: readonly number[]) =>
      ids.map((id) => ({
        id,
        workflow_id: id === 2 ? 'epic' : 'issue',
        definition: { stages: STAGES.map((s) => ({ id: s, terminal: isTerminalStatus(s) })) },
      })),
  } as unknown as FrontierRepository;
}

function heapMb(): number {
  global.gc!();
  global.gc!();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

async function main(): Promise<void> {
  if (!global.gc) throw new Error('run with node --expose-gc');
  const shapes = (process.argv[2] ?? '1000:50,10000:5,100000:1').split(',').map((s) => s.split(':').map(Number));
  for (const [n, count] of shapes) {
    const all = new Map<string, ReturnType<typeof projectRows>>();
    for (let p = 0; p < count; p++) {
      const rows = projectRows(p, n);
      all.set((rows.project as { id: string }).id, rows);
    }
    const cache = new FrontierGraphCache(repositoryOver(all), {} as DependencyFactsService, undefined, {
      frontierCacheBudget: Number.MAX_SAFE_INTEGER,
    });
    const before = heapMb();
    let units = 0;
    for (const { project } of all.values()) {
      // a service per project: its delta history (8 projects) is not the cache's
      const service = new FrontierService(cache, null as never, null as never, null as never);
      await service.frontierBody(project, 30, null, false);
      units += graphSize(stateOf(cache, project));
    }
    const after = heapMb();
    const perProject = (after - before) / count;
    process.stdout.write(
      `${JSON.stringify({
        items: n,
        projects: count,
        units_per_project: Math.round(units / count),
        retained_mb_per_project: Math.round(perProject * 100) / 100,
        bytes_per_unit: Math.round((perProject * 2 ** 20) / (units / count)),
        bytes_per_item: Math.round((perProject * 2 ** 20) / n),
        rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20),
      })}\n`,
    );
    all.clear();
  }
}

// the state of a cached project, read through the cache's private map (a measurement, not an API)
function stateOf(cache: FrontierGraphCache, project: ProjectRow) {
  const map = (cache as unknown as { graphCache: Map<string, { state: Parameters<typeof graphSize>[0] }> }).graphCache;
  for (const [key, entry] of map) if (key.startsWith(`${project.id}|`)) return entry.state;
  throw new Error('not cached');
}

void main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
