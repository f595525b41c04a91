import { BARE_DEFAULT_PROFILE_TEXT, negativeClaim, serializeStoredClaim } from './db-claim';
import { checkProseMismatch, detectGovernedDbWork, GOVERNED_DB_WORK_RULES } from './prose-detector';

const NOW = '2025-03-01T12:00:00.000Z';

describe('detectGovernedDbWork', () => {
  describe('positives', () => {
    it.each([
      ['Add a migration that creates the epic_dispatch_chains table.', 'migration'],
      ['This needs two migrations.', 'migration'],
      ['Requires a DB migration before deploy', 'migration'],
      ['Ship the schema change behind a flag', 'schema_change'],
      ['Database schema changes are reviewed by the DBA', 'schema_change'],
      ['We will update the database schema for deploy_stage', 'schema_change'],
      ['Run ALTER TABLE items ADD COLUMN deploy_stage text', 'sql_table_ddl'],
      ['CREATE TABLE epic_tasks (id integer primary key)', 'sql_table_ddl'],
      ['create unique index items_ref_idx on items (ref)', 'sql_index_ddl'],
      ['We add an index on items(status) for the frontier query', 'sql_index_ddl'],
      ['DROP TABLE legacy_claims;', 'sql_table_ddl'],
      ['alter table items drop column frozen', 'sql_table_ddl'],
      ['then DROP COLUMN frozen in a later release', 'drop_column'],
      ['Add a nullable deploy_stage column to items', 'add_column'],
      ['adds a column for the resolution ref', 'add_column'],
      ['A new column resolution_ref stores the duplicate ref', 'new_column'],
      ['Rename the blocked column to is_blocked', 'rename_column'],
      ['Backfill existing rows with medium priority', 'backfill'],
      ['back-filling the owner field from source', 'backfill'],
      ['A data migration moves blocked status into the flag pair', 'data_migration'],
      ['Finally run npm run db:migrate on staging', 'migration_command'],
      ['typeorm migration:generate -d data-source.ts', 'migration_command'],
      ['then knex migrate:latest', 'migration_command'],
      ['prisma migrate deploy in CI', 'migration_command'],
      ['see apps/daemon/src/database/migrations/1700000000000-AddDeployStage.ts', 'migration_file'],
      ['class 1698693294632-AddActivity', 'migration_file'],
      ['prisma/migrations/20240101120000_add_owner/migration.sql', 'migration_file'],
      ['implements MigrationInterface', 'migration_code'],
      ['await queryRunner.addColumn("items", column)', 'migration_code'],
      ['edit schema.prisma to add the relation', 'migration_code'],
      ['Put @Column({ type: "text", nullable: true }) on the entity', 'entity_decorator'],
      ['Migrate the existing rows to the new flag pair', 'migrate_database'],
      ['New table item_progress for the projection', 'new_table'],
      ['Add a foreign key from epic_tasks to items', 'constraint_change'],
      ['ALTER TYPE priority ADD VALUE', 'sql_other_ddl'],
      ['and SET NOT NULL on owner afterwards', 'sql_other_ddl'],
      ['No API changes, migration adds a column', 'migration'],
      ['No, we add a migration after all.', 'migration'],
      ['No UI change. The migration adds deploy_stage.', 'migration'],
      ['There is no downtime because the backfill runs in batches', 'backfill'],
      ['Nothing changes for readers, but a migration is needed', 'migration'],
      ['Not sure we need a migration here', 'migration'],
      ['In scope: database migrations', 'migration'],
      ['Out of scope: UI polish. Add a migration for owner.', 'migration'],
    ])('should match %p as %s', (text, rule) => {
      const result = detectGovernedDbWork(text);
      expect(result).toMatchObject({ matched: true, rule });
      expect(result.excerpt).not.toBeNull();
    });
  });

  describe('negatives', () => {
    it.each([
      ['No migration needed.'],
      ['no migrations'],
      ['No schema change.'],
      ['No database migration is required for this change.'],
      ['This change does not require a migration.'],
      ["We don't need any migrations for this."],
      ['There is no need for a migration.'],
      ['Migration: none'],
      ['Schema changes: N/A'],
      ['Migrations are not required.'],
      ['database migration not needed'],
      ['Migration needed: no'],
      ['No migrations, schema changes or backfills.'],
      ['Works without a migration or new columns.'],
      ['never drop column in the same release'],
      ['Study the bird migration patterns'],
      ['Follow the React migration guide'],
      ['framework migration to the new router'],
      ['Plan the migration to Node 22'],
      ['The cloud migration is handled by infra'],
      ['Update the JSON schema change log for the API'],
      ['Add a new column in the frontier view'],
      ['Remove the priority column from the TUI table view'],
      ['Create index.ts barrel files for the lib'],
      ['Render the table with cli-table3'],
      ['Add a table of contents to the README'],
      ['Migrate the CI to GitHub Actions'],
      ['Plain frontier ranking change with unit tests only.'],
      [''],
      ['migration_strategy and migration_modules are claim fields'],
      ['mention @Columnist and user@Entity.com'],
      ['A migration-free change'],
      ['Out of scope: database migrations'],
      ['Non-goals: schema changes, backfills'],
    ])('should not match %p', (text) => {
      expect(detectGovernedDbWork(text)).toEqual({ matched: false, excerpt: null, rule: null });
    });
  });

  describe('negation scope', () => {
    it('should still match a later non-negated phrase after a negated one', () => {
      const result = detectGovernedDbWork('No schema change. Later we backfill the owner column.');
      expect(result).toMatchObject({ matched: true, rule: 'backfill' });
    });

    it('should not carry a negation past a contrastive conjunction', () => {
      expect(detectGovernedDbWork('No API change but a migration adds the column').rule).toBe('migration');
    });

    it('should handle a typographic apostrophe', () => {
      expect(detectGovernedDbWork('This doesn’t need a migration').matched).toBe(false);
    });
  });

  describe('excerpt', () => {
    it('should return the phrase with about 40 characters of context each side', () => {
      const text = `${'a'.repeat(100)} we need a schema change for this ${'b'.repeat(100)}`;
      const { excerpt } = detectGovernedDbWork(text);
      expect(excerpt).toMatch(/^\.\.\.a+ we need a schema change for this b+\.\.\.$/);
      expect(excerpt!.length).toBeLessThanOrEqual('schema change'.length + 80 + 6);
    });

    it('should not add ellipses when the text is short and collapse whitespace', () => {
      expect(detectGovernedDbWork('Add\n\n  a   migration').excerpt).toBe('Add a migration');
    });

    it('should report the earliest match in the text', () => {
      expect(detectGovernedDbWork('Backfill first, then ALTER TABLE items').rule).toBe('backfill');
    });

    it('should prefer the more specific rule at the same offset', () => {
      expect(detectGovernedDbWork('data migration for owners').rule).toBe('data_migration');
    });
  });

  it('should give every rule a unique id, a description and a global case-insensitive pattern', () => {
    const ids = GOVERNED_DB_WORK_RULES.map((rule) => rule.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const rule of GOVERNED_DB_WORK_RULES) {
      expect(rule.description.length).toBeGreaterThan(0);
      expect(rule.pattern.flags).toContain('g');
      expect(rule.pattern.flags).toContain('i');
    }
  });

  it('should be repeatable (no regex lastIndex state leaks between calls)', () => {
    expect(detectGovernedDbWork('a migration').matched).toBe(true);
    expect(detectGovernedDbWork('a migration').matched).toBe(true);
  });
});

describe('checkProseMismatch', () => {
  const reviewedProfile = serializeStoredClaim(negativeClaim('docs only', NOW)).profileText;

  it('should refuse the bare default profile when the spec declares DB work', () => {
    expect(checkProseMismatch({ spec: 'Add a migration for deploy_stage' }, BARE_DEFAULT_PROFILE_TEXT)).toEqual({
      code: 'GATE_DB_CLAIM_PROSE_MISMATCH',
      message: expect.stringContaining('Add a migration for deploy_stage'),
      recovery: 'run db-claim-amend',
      trigger: { field: 'spec', excerpt: 'Add a migration for deploy_stage', rule: 'migration' },
    });
  });

  it('should name the body when only the body declares DB work', () => {
    const result = checkProseMismatch(
      { spec: 'Rank by priority', body: 'ALTER TABLE items' },
      BARE_DEFAULT_PROFILE_TEXT,
    );
    expect(result?.trigger).toEqual({ field: 'body', excerpt: 'ALTER TABLE items', rule: 'sql_table_ddl' });
  });

  it('should name the spec first when both declare DB work', () => {
    expect(checkProseMismatch({ spec: 'a backfill', body: 'a migration' }, null)?.trigger.field).toBe('spec');
  });

  it('should treat a null profile as the bare default', () => {
    expect(checkProseMismatch({ body: 'a schema change' }, null)?.code).toBe('GATE_DB_CLAIM_PROSE_MISMATCH');
  });

  it.each([
    ['not json'],
    ['{}'],
    ['{"state":"none","reviewed_negative":"true"}'],
    ['{"state":"none","model_name":"x"}'],
  ])('should refuse when the profile %s is not a reviewed negative', (profile) => {
    expect(checkProseMismatch({ spec: 'new column owner' }, profile)).not.toBeNull();
  });

  it('should pass a reviewed negative', () => {
    expect(checkProseMismatch({ spec: 'Add a migration' }, reviewedProfile)).toBeNull();
  });

  it('should pass a declared claim', () => {
    expect(checkProseMismatch({ spec: 'Add a migration' }, '{"state":"declared"}')).toBeNull();
  });

  it.each([
    [{}],
    [{ spec: null, body: null }],
    [{ spec: '', body: '' }],
    [{ spec: 'No migration needed.', body: 'Frontier ranking only.' }],
  ])('should pass the bare default when the prose declares no DB work (%p)', (texts) => {
    expect(checkProseMismatch(texts, BARE_DEFAULT_PROFILE_TEXT)).toBeNull();
  });
});
