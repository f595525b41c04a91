import { Client } from 'pg';

// Direct SQL, fast enough for benchmarks of 100k items.

export interface ProjectSpec {
  id: string;
  prefix: string;
  name?: string;
  policy?: Record<string, unknown>;
}

export interface ItemSpec {
  title?: string;
  status?: string;
  priority?: 'high' | 'medium' | 'low';
  workflow?: string;
  frozen?: boolean;
  blocked?: boolean;
  blockedReason?: string | null;
  createdAt?: string;
  mergedAt?: string | null;
}

export interface CreatedItem {
  id: number;
  ref: string;
  seq: number;
}

export interface EdgeSpec {
  blocker: number;
  dependent: number;
  gatePoint?: 'activation' | 'integration' | 'closure' | 'coordination_only';
  satisfaction?: string;
  rationale?: string;
}

const FALLBACK_STAGES = [
  ['idea', 'refine', '/svc refine {ref}'],
  ['refining-idea', 'refine', '/svc refine {ref}'],
  ['refined-idea', 'conduct', '/svc conduct {ref}'],
  ['plan-drafted', 'refine', '/svc refine {ref}'],
  ['refining-plan', 'refine', '/svc refine {ref}'],
  ['planning', 'conduct', '/svc conduct {ref}'],
  ['planned', 'conduct', '/svc conduct {ref}'],
  ['implementing', 'advance', '/svc advance {ref} implementation'],
  ['reviewing-implementation', 'advance', '/svc advance {ref} implementation'],
  ['reviewed-implementation', 'polish', '/svc polish {ref}'],
  ['polishing-implementation', 'polish', '/svc polish {ref}'],
  ['implemented', 'usher', '/svc usher {ref}'],
  ['release', 'usher', '/svc usher {ref}'],
  ['done', 'skip', null],
  ['cancelled', 'skip', null],
  ['stopped', 'skip', null],
  ['failed', 'skip', null],
] as const;

export async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function createProject(client: Client, spec: ProjectSpec): Promise<void> {
  await client.query(
    // A project with no organization is visible to server admins only.
    `INSERT INTO projects (id, name, public_item_prefix, policy, organization_id)
     VALUES ($1, $2, $3, $4::jsonb,
             (SELECT id FROM organizations ORDER BY (slug = 'default') DESC, created_at, id LIMIT 1))
     ON CONFLICT (id) DO UPDATE SET policy = EXCLUDED.policy`,
    [spec.id, spec.name ?? spec.id, spec.prefix, JSON.stringify(spec.policy ?? {})],
  );
}

// The current version of a workflow; registers a minimal one (the default stage table) when it is missing.
export async function workflowVersionId(client: Client, workflowId = 'issue', definition?: unknown): Promise<number> {
  if (!definition) {
    const current = await client.query<{ id: number }>(
      `SELECT coalesce(w.current_version_id, (SELECT max(id) FROM workflow_versions v WHERE v.workflow_id = w.id)) AS id
         FROM workflows w WHERE w.id = $1`,
      [workflowId],
    );
    if (current.rows[0]?.id) return current.rows[0].id;
  }
  const body = definition ?? {
    id: workflowId,
    name: workflowId,
    initial_stage: 'idea',
    stages: FALLBACK_STAGES.map(([id, adapter, entrypoint]) => ({
      id,
      adapter: workflowId === 'epic' && adapter === 'advance' ? 'conduct' : adapter,
      entrypoint,
      gates: [],
      terminal: adapter === 'skip',
    })),
  };
  await client.query(`INSERT INTO workflows (id, name) VALUES ($1, $1) ON CONFLICT (id) DO NOTHING`, [workflowId]);
  const inserted = await client.query<{ id: number }>(
    `INSERT INTO workflow_versions (workflow_id, version, definition, checksum, created_by)
     SELECT $1::text, coalesce(max(version), 0) + 1, $2::text::jsonb, md5($2::text), 'test-factory'
       FROM workflow_versions WHERE workflow_id = $1
     RETURNING id`,
    [workflowId, JSON.stringify(body)],
  );
  await client.query(`UPDATE workflows SET current_version_id = $2 WHERE id = $1`, [workflowId, inserted.rows[0].id]);
  return inserted.rows[0].id;
}

// One multi-row INSERT per 20k items (unnest of arrays).
export async function insertItems(client: Client, project: string, specs: readonly ItemSpec[]): Promise<CreatedItem[]> {
  if (specs.length === 0) return [];
  const versions = new Map<string, number>();
  for (const spec of specs) {
    const workflow = spec.workflow ?? 'issue';
    if (!versions.has(workflow)) versions.set(workflow, await workflowVersionId(client, workflow));
  }
  const reserved = await client.query<{ first: number; prefix: string }>(
    `UPDATE projects SET next_sequence = next_sequence + $2 WHERE id = $1
     RETURNING next_sequence - $2 AS first, public_item_prefix AS prefix`,
    [project, specs.length],
  );
  const { first, prefix } = reserved.rows[0];
  const created: CreatedItem[] = [];
  const CHUNK = 20_000;
  for (let start = 0; start < specs.length; start += CHUNK) {
    const chunk = specs.slice(start, start + CHUNK);
    const seqs = chunk.map((_s, i) => first + start + i);
    const rows = await client.query<{ id: number; seq: number }>(
      `INSERT INTO items (project, project_sequence, title, workflow_id, workflow_version_id, status, priority, frozen,
                          blocked, blocked_reason, created_at, updated_at, merged_at, source)
       SELECT $1, s, t, w, v, st, pr, fr, bl, br, coalesce(ca, now()), coalesce(ca, now()), ma, 'factory'
         FROM unnest($2::int[], $3::text[], $4::text[], $5::int[], $6::text[], $7::text[], $8::int[], $9::int[],
                     $10::text[], $11::timestamptz[], $12::timestamptz[]) AS x(s, t, w, v, st, pr, fr, bl, br, ca, ma)
       RETURNING id, project_sequence AS seq`,
      [
        project,
        seqs,
        chunk.map((s, i) => s.title ?? `Item ${seqs[i]}`),
        chunk.map((s) => s.workflow ?? 'issue'),
        chunk.map((s) => versions.get(s.workflow ?? 'issue')),
        chunk.map((s) => s.status ?? 'planned'),
        chunk.map((s) => s.priority ?? 'medium'),
        chunk.map((s) => (s.frozen ? 1 : 0)),
        chunk.map((s) => (s.blocked ? 1 : 0)),
        chunk.map((s) => s.blockedReason ?? null),
        chunk.map((s) => s.createdAt ?? null),
        chunk.map((s) => s.mergedAt ?? null),
      ],
    );
    const bySeq = new Map(rows.rows.map((r) => [r.seq, r.id]));
    for (const seq of seqs) created.push({ id: bySeq.get(seq)!, seq, ref: `${prefix}-${seq}` });
  }
  return created;
}

export async function insertEdges(client: Client, edges: readonly EdgeSpec[]): Promise<void> {
  const CHUNK = 50_000;
  for (let start = 0; start < edges.length; start += CHUNK) {
    const chunk = edges.slice(start, start + CHUNK);
    await client.query(
      `INSERT INTO item_dependencies (blocking_item_id, dependent_item_id, gate_point, satisfaction, rationale, source)
       SELECT b, d, g, s, r, 'operator'
         FROM unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::text[]) AS x(b, d, g, s, r)
       ON CONFLICT (dependent_item_id, blocking_item_id, gate_point) DO NOTHING`,
      [
        chunk.map((e) => e.blocker),
        chunk.map((e) => e.dependent),
        chunk.map((e) => e.gatePoint ?? 'activation'),
        chunk.map((e) => e.satisfaction ?? 'status:done'),
        chunk.map((e) => e.rationale ?? ''),
      ],
    );
  }
}

export async function setItemStatus(client: Client, id: number, status: string): Promise<void> {
  await client.query('UPDATE items SET status = $2, updated_at = now() WHERE id = $1', [id, status]);
}

export interface EnvironmentSpec {
  project: string;
  name: string;
  tier?: string | null;
  retired?: boolean;
}

export async function insertEnvironment(client: Client, spec: EnvironmentSpec): Promise<void> {
  await client.query(
    `INSERT INTO environments (project, name, tier, retired_at) VALUES ($1, $2, $3, CASE WHEN $4 THEN now() END)`,
    [spec.project, spec.name, spec.tier ?? null, spec.retired ?? false],
  );
}

export interface RunSpec {
  project: string;
  environment: string;
  status?: 'pending' | 'running' | 'halted' | 'succeeded' | 'failed' | 'cancelled';
  items: readonly number[];
  flowId?: string | null;
  currentStage?: string | null;
  stageIndex?: number;
  stageCount?: number;
}

export async function insertRun(client: Client, spec: RunSpec): Promise<string> {
  const rows = await client.query<{ id: string }>(
    `INSERT INTO deployment_runs (project, flow_id, environment, status, carried_work, current_stage, stage_index,
                                  stage_count)
     VALUES ($1, $2, $3, $4, jsonb_build_object('items', $5::jsonb), $6, $7, $8) RETURNING id`,
    [
      spec.project,
      spec.flowId ?? null,
      spec.environment,
      spec.status ?? 'succeeded',
      JSON.stringify(spec.items),
      spec.currentStage ?? null,
      spec.stageIndex ?? 0,
      spec.stageCount ?? 0,
    ],
  );
  return rows.rows[0].id;
}
