import { MigrationInterface, QueryRunner } from 'typeorm';

import { DEFAULT_WORKFLOW_DEFINITIONS } from './1763784000001-DefaultWorkflows';

const SEEDED_BY = 'migration:GatesAtEveryPoint';
const V1_SEEDED_BY = 'migration:DefaultWorkflows';

// Version 2 of the default workflows (issue 11): besides the activation gate on implementing, check_hard_blocks at
// integration on release (where the merge is recorded; merge_stage makes a merged_at write pass the same gate) and
// at closure on done. Items keep their pinned version: nothing existing is rewritten. The new version becomes
// current only where the workflow's current version is still the seeded version 1.
export const GATED_WORKFLOW_DEFINITIONS = DEFAULT_WORKFLOW_DEFINITIONS.map((definition) => ({
  ...definition,
  stages: definition.stages.map((stage) => {
    if (stage.id === 'release') return { ...stage, gates: [{ type: 'check_hard_blocks', gate_point: 'integration' }] };
    if (stage.id === 'done') return { ...stage, gates: [{ type: 'check_hard_blocks', gate_point: 'closure' }] };
    return stage;
  }),
  merge_stage: 'release',
}));

export class GatesAtEveryPoint1763956800000 implements MigrationInterface {
  name = 'GatesAtEveryPoint1763956800000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const definition of GATED_WORKFLOW_DEFINITIONS) {
      await queryRunner.query(
        `INSERT INTO workflow_versions (workflow_id, version, definition, checksum, created_by)
         SELECT $1, COALESCE(max(version), 0) + 1, $2::jsonb, encode(sha256(convert_to($2::jsonb::text, 'UTF8')), 'hex'), $3
           FROM workflow_versions WHERE workflow_id = $1
         HAVING NOT EXISTS (SELECT 1 FROM workflow_versions
                             WHERE workflow_id = $1
                               AND checksum = encode(sha256(convert_to($2::jsonb::text, 'UTF8')), 'hex'))
            AND EXISTS (SELECT 1 FROM workflows WHERE id = $1)`,
        [definition.id, JSON.stringify(definition), SEEDED_BY],
      );
      await queryRunner.query(
        `UPDATE workflows w SET current_version_id = v.id
           FROM workflow_versions v
          WHERE w.id = $1 AND v.workflow_id = w.id AND v.created_by = $2
            AND w.current_version_id IN (SELECT id FROM workflow_versions WHERE workflow_id = $1 AND created_by = $3)`,
        [definition.id, SEEDED_BY, V1_SEEDED_BY],
      );
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE workflows w SET current_version_id = (SELECT v.id FROM workflow_versions v
                                                      WHERE v.workflow_id = w.id AND v.created_by = $2)
        WHERE w.current_version_id IN (SELECT id FROM workflow_versions WHERE created_by = $1)`,
      [SEEDED_BY, V1_SEEDED_BY],
    );
    await queryRunner.query(
      `DELETE FROM workflow_versions v WHERE v.created_by = $1
          AND NOT EXISTS (SELECT 1 FROM items i WHERE i.workflow_version_id = v.id)`,
      [SEEDED_BY],
    );
  }
}
