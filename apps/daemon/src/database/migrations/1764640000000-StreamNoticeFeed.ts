import { MigrationInterface, QueryRunner } from 'typeorm';

// Issue 38: no server-wide serialization on the write path.
// - The live stream's notices (items, dependencies, claims, machine authorizations, recorded events) are rows of
//   stream_notices, written in the changing transaction, instead of a NOTIFY there: PostgreSQL commits every
//   transaction holding a notification one at a time (a global lock), and every replica's writers queued behind it.
//   Each row carries its writing transaction's id (xid8); each replica's reader (events-stream.service.ts) delivers
//   the rows below the oldest transaction still in flight (pg_snapshot_xmin), in (xid, id) order: nothing can still
//   commit below that line, so every replica delivers the same rows in the same order.
// - events.xid: the same order for a stream resuming with Last-Event-ID (replaces the advisory lock each event insert
//   held through its commit). Rows from before this migration read as xid 0, in id order as before.
// - svc_notice(channel, payload): pg_notify's signature, so the trigger functions keep their bodies with the one call
//   renamed (and the down renames it back).
const NOTIFYING = [
  'svc_notify_items',
  'svc_notify_dependencies',
  'svc_notify_claims',
  'svc_notify_machine_authorizations',
];

function rename(from: string, to: string): string {
  return `
    DO $do$
    DECLARE
      f text;
      src text;
    BEGIN
      FOREACH f IN ARRAY ARRAY[${NOTIFYING.map((n) => `'${n}'`).join(', ')}] LOOP
        SELECT prosrc INTO STRICT src FROM pg_proc WHERE proname = f AND pronamespace = 'public'::regnamespace;
        EXECUTE format('CREATE OR REPLACE FUNCTION public.%I() RETURNS trigger LANGUAGE plpgsql AS %L',
                       f, replace(src, '${from}(', '${to}('));
      END LOOP;
    END $do$;`;
}

export class StreamNoticeFeed1764640000000 implements MigrationInterface {
  name = 'StreamNoticeFeed1764640000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE stream_notices (
        id bigserial PRIMARY KEY,
        xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
        channel text NOT NULL,
        payload text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX ix_stream_notices_xid ON stream_notices (xid, id);
      CREATE INDEX ix_stream_notices_created_at ON stream_notices (created_at);

      CREATE FUNCTION svc_notice(p_channel text, p_payload text) RETURNS void LANGUAGE sql AS $$
        INSERT INTO stream_notices (channel, payload) VALUES (p_channel, p_payload)
      $$;

      ALTER TABLE events ADD COLUMN xid xid8 NOT NULL DEFAULT '0';
      ALTER TABLE events ALTER COLUMN xid SET DEFAULT pg_current_xact_id();
      CREATE INDEX ix_events_xid ON events (xid, id);
    `);
    await queryRunner.query(rename('pg_notify', 'svc_notice'));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(rename('svc_notice', 'pg_notify'));
    await queryRunner.query(`
      DROP INDEX IF EXISTS ix_events_xid;
      ALTER TABLE events DROP COLUMN IF EXISTS xid;
      DROP FUNCTION IF EXISTS svc_notice(text, text);
      DROP TABLE IF EXISTS stream_notices;
    `);
  }
}
