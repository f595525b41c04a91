import { MigrationInterface, QueryRunner } from 'typeorm';

interface SeedStage {
  id: string;
  name: string;
  adapter: string;
  entrypoint: string | null;
  gates: { type: string; gate_point: string }[];
  terminal: boolean;
}

const HARD_BLOCKS = [{ type: 'check_hard_blocks', gate_point: 'activation' }];

function stage(id: string, name: string, adapter: string, entrypoint: string | null, gated = false): SeedStage {
  return { id, name, adapter, entrypoint, gates: gated ? HARD_BLOCKS : [], terminal: false };
}

function terminal(id: string, name: string): SeedStage {
  return { id, name, adapter: 'skip', entrypoint: null, gates: [], terminal: true };
}

const TERMINALS = [
  terminal('done', 'Done'),
  terminal('cancelled', 'Cancelled'),
  terminal('stopped', 'Stopped'),
  terminal('failed', 'Failed'),
];

const PROSE_GATE = { enter: ['refined-idea', 'planned'], exit: ['refining-plan', 'polishing-implementation'] };

// Frozen copies (a migration never changes): the stage order is the spec's status list, adapters follow
// the AdapterCategory table. Issues are conducted straight from refined-idea/planning and re-enter
// implementation with advance; epics are shepherded there and keep conducting their tasks.
export const DEFAULT_WORKFLOW_DEFINITIONS = [
  {
    id: 'issue',
    name: 'Issue',
    description: 'Default workflow of a single backlog item',
    initial_stage: 'idea',
    stages: [
      stage('idea', 'Idea', 'refine', '/svc refine {ref}'),
      stage('refining-idea', 'Refining idea', 'refine', '/svc refine {ref}'),
      stage('refined-idea', 'Refined idea', 'conduct', '/svc conduct {ref}'),
      stage('plan-drafted', 'Plan drafted', 'refine', '/svc refine {ref}'),
      stage('refining-plan', 'Refining plan', 'refine', '/svc refine {ref}'),
      stage('planning', 'Planning', 'conduct', '/svc conduct {ref}'),
      stage('planned', 'Planned', 'conduct', '/svc conduct {ref}'),
      stage('implementing', 'Implementing', 'advance', '/svc advance {ref} implementation', true),
      stage('reviewing-implementation', 'Reviewing implementation', 'advance', '/svc advance {ref} implementation'),
      stage('reviewed-implementation', 'Reviewed implementation', 'polish', '/svc polish {ref}'),
      stage('polishing-implementation', 'Polishing implementation', 'polish', '/svc polish {ref}'),
      stage('implemented', 'Implemented', 'usher', '/svc usher {ref}'),
      stage('release', 'Release', 'usher', '/svc usher {ref}'),
      ...TERMINALS,
    ],
    db_claim_prose_gate: PROSE_GATE,
  },
  {
    id: 'epic',
    name: 'Epic',
    description: 'Default workflow of an epic: matured by shepherd, implemented through its epic tasks',
    initial_stage: 'idea',
    stages: [
      stage('idea', 'Idea', 'refine', '/svc refine {ref}'),
      stage('refining-idea', 'Refining idea', 'refine', '/svc refine {ref}'),
      stage('refined-idea', 'Refined idea', 'shepherd', '/svc shepherd {ref}'),
      stage('plan-drafted', 'Plan drafted', 'refine', '/svc refine {ref}'),
      stage('refining-plan', 'Refining plan', 'refine', '/svc refine {ref}'),
      stage('planning', 'Planning', 'shepherd', '/svc shepherd {ref}'),
      stage('planned', 'Planned', 'conduct', '/svc conduct {ref}'),
      stage('implementing', 'Implementing', 'conduct', '/svc conduct {ref}', true),
      stage('reviewing-implementation', 'Reviewing implementation', 'conduct', '/svc conduct {ref}'),
      stage('reviewed-implementation', 'Reviewed implementation', 'polish', '/svc polish {ref}'),
      stage('polishing-implementation', 'Polishing implementation', 'polish', '/svc polish {ref}'),
      stage('implemented', 'Implemented', 'usher', '/svc usher {ref}'),
      stage('release', 'Release', 'usher', '/svc usher {ref}'),
      ...TERMINALS,
    ],
    db_claim_prose_gate: PROSE_GATE,
  },
];

const SEEDED_BY = 'migration:DefaultWorkflows';

export class DefaultWorkflows1763784000001 implements MigrationInterface {
  name = 'DefaultWorkflows1763784000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const definition of DEFAULT_WORKFLOW_DEFINITIONS) {
      await queryRunner.query(`INSERT INTO workflows (id, name) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`, [
        definition.id,
        definition.name,
      ]);
      // The checksum is the SHA-256 of PostgreSQL's canonical jsonb text, as the daemon computes it.
      await queryRunner.query(
        `INSERT INTO workflow_versions (workflow_id, version, definition, checksum, created_by)
         SELECT $1, COALESCE(max(version), 0) + 1, $2::jsonb, encode(sha256(convert_to($2::jsonb::text, 'UTF8')), 'hex'), $3
           FROM workflow_versions WHERE workflow_id = $1
         HAVING NOT EXISTS (SELECT 1 FROM workflow_versions
                             WHERE workflow_id = $1
                               AND checksum = encode(sha256(convert_to($2::jsonb::text, 'UTF8')), 'hex'))`,
        [definition.id, JSON.stringify(definition), SEEDED_BY],
      );
      await queryRunner.query(
        `UPDATE workflows w SET current_version_id = v.id
           FROM workflow_versions v
          WHERE w.id = $1 AND w.current_version_id IS NULL AND v.workflow_id = w.id AND v.created_by = $2`,
        [definition.id, SEEDED_BY],
      );
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE workflows SET current_version_id = NULL
        WHERE current_version_id IN (SELECT id FROM workflow_versions WHERE created_by = $1)`,
      [SEEDED_BY],
    );
    await queryRunner.query(`DELETE FROM workflow_versions WHERE created_by = $1`, [SEEDED_BY]);
    await queryRunner.query(
      `DELETE FROM workflows w WHERE w.id IN ('issue', 'epic')
          AND NOT EXISTS (SELECT 1 FROM workflow_versions v WHERE v.workflow_id = w.id)`,
    );
  }
}
