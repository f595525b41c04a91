import { MigrationInterface, QueryRunner } from 'typeorm';

// Issues 37 and 39: comments on an item, a note anyone who sees the item may add (an agent over MCP, a person in the
// TUI or `svc items comment`). The author is named as change_records names a writer (actor, credential, executor
// session and harness, path), copied from the request's writer; time from now(). A comment goes with its item, and
// each is recorded on the item's history by the trigger items' other rows use (object 'comment').
export class ItemComments1764600000000 implements MigrationInterface {
  name = 'ItemComments1764600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE item_comments (
        id bigserial PRIMARY KEY,
        item_id integer NOT NULL REFERENCES items (id) ON DELETE CASCADE,
        actor_id integer REFERENCES actors (id) ON DELETE SET NULL,
        actor_name text,
        credential_kind text,
        credential_id integer,
        session_id integer,
        harness text,
        path text NOT NULL,
        body text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX ix_item_comments_item ON item_comments (item_id, id DESC);
      CREATE TRIGGER tr_item_comments_record AFTER INSERT OR UPDATE OR DELETE ON item_comments
        FOR EACH ROW EXECUTE FUNCTION svc_record_item_rows('comment', 'item_id', 'id');
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TRIGGER IF EXISTS tr_item_comments_record ON item_comments;
      DROP TABLE IF EXISTS item_comments;
    `);
  }
}
