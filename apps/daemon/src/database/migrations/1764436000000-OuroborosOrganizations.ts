import { MigrationInterface, QueryRunner } from 'typeorm';

// Issue 24 (an audit's gap): ouroboros entries were shared by the whole server, so any live credential listed,
// wrote, reviewed and archived every organization's entries. Each entry now belongs to one organization.
// - Existing entries go to the server's organization (the first-boot `default` one, else the oldest: the rule
//   RevocationReachesEverything1764310000001 used for projects). An entry records nothing that ties it to an
//   organization: `agent` is a free string, `context` free text the daemon never checked (a ref in it may name
//   another organization's item, or several, or none), so reading an organization out of it could hand an entry to
//   an organization whose people never wrote it. Before organizations every entry lived in that one organization.
// - A server whose entries exist but whose organizations were all deleted by hand gets a `default` one (the slug the
//   first boot makes), so no entry is lost and the column can be NOT NULL.
// - ON DELETE CASCADE: an organization's entries go with it (as its memberships do); none is left for no one.
export class OuroborosOrganizations1764436000000 implements MigrationInterface {
  name = 'OuroborosOrganizations1764436000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      INSERT INTO organizations (slug, name)
      SELECT 'default', 'default'
       WHERE EXISTS (SELECT 1 FROM ouroboros_entries) AND NOT EXISTS (SELECT 1 FROM organizations);
      ALTER TABLE ouroboros_entries ADD COLUMN organization_id integer REFERENCES organizations (id) ON DELETE CASCADE;
      UPDATE ouroboros_entries
         SET organization_id = (SELECT id FROM organizations ORDER BY (slug = 'default') DESC, created_at, id LIMIT 1);
      ALTER TABLE ouroboros_entries ALTER COLUMN organization_id SET NOT NULL;
      CREATE INDEX ix_ouroboros_entries_organization ON ouroboros_entries (organization_id, "timestamp" DESC, id DESC);
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP INDEX IF EXISTS ix_ouroboros_entries_organization;
      ALTER TABLE ouroboros_entries DROP COLUMN IF EXISTS organization_id;
    `);
  }
}
