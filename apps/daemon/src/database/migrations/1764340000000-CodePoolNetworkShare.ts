import { MigrationInterface, QueryRunner } from 'typeorm';

// Issue 24: one network (IPv4 /24, IPv6 /48) may hold only a share of the server-wide pool of unconsumed device
// codes, so a handful of addresses of one operator can no longer fill the pool and lock every machine out. Each code
// records its network; the start counts a network's open codes like it counts a client's (same advisory lock).
// Codes of the last ten minutes get their network from their client key; a code a replica without this column
// inserts (during a rolling upgrade) has none and counts toward the client and server limits only.
export class CodePoolNetworkShare1764340000000 implements MigrationInterface {
  name = 'CodePoolNetworkShare1764340000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE machine_authorizations ADD COLUMN network_key text;
      UPDATE machine_authorizations
         SET network_key = CASE
               WHEN client_key ~ '^\\d+\\.\\d+\\.\\d+\\.\\d+$' THEN regexp_replace(client_key, '\\.\\d+$', '.0/24')
               WHEN client_key ~ '^[0-9a-f]+:[0-9a-f]+:[0-9a-f]+:[0-9a-f]+::/64$'
                 THEN regexp_replace(client_key, '^([0-9a-f]+:[0-9a-f]+:[0-9a-f]+):.*$', '\\1::/48')
               ELSE client_key
             END;
      CREATE INDEX ix_machine_authorizations_network_open ON machine_authorizations (network_key, expires_at)
        WHERE status IN ('pending', 'approved');
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP INDEX IF EXISTS ix_machine_authorizations_network_open;
      ALTER TABLE machine_authorizations DROP COLUMN IF EXISTS network_key;
    `);
  }
}
