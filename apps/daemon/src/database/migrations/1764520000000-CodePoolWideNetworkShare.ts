import { MigrationInterface, QueryRunner } from 'typeorm';

// Issue 36: four /24 networks of one operator still filled the 128-code pool. Each code also records its wide network
// (IPv4 /16, IPv6 /32), counted under the same advisory lock as its client and network, with a share of its own.
// Open codes get it from their client key; a code a replica without this column inserts (during a rolling upgrade)
// has none and counts toward the other limits only.
export class CodePoolWideNetworkShare1764520000000 implements MigrationInterface {
  name = 'CodePoolWideNetworkShare1764520000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE machine_authorizations ADD COLUMN wide_network_key text;
      UPDATE machine_authorizations
         SET wide_network_key = CASE
               WHEN client_key ~ '^\\d+\\.\\d+\\.\\d+\\.\\d+$' THEN regexp_replace(client_key, '\\.\\d+\\.\\d+$', '.0.0/16')
               WHEN client_key ~ '^[0-9a-f]+:[0-9a-f]+:[0-9a-f]+:[0-9a-f]+::/64$'
                 THEN regexp_replace(client_key, '^([0-9a-f]+:[0-9a-f]+):.*$', '\\1::/32')
               ELSE client_key
             END
       WHERE status IN ('pending', 'approved');
      CREATE INDEX ix_machine_authorizations_wide_network_open ON machine_authorizations (wide_network_key, expires_at)
        WHERE status IN ('pending', 'approved');
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP INDEX IF EXISTS ix_machine_authorizations_wide_network_open;
      ALTER TABLE machine_authorizations DROP COLUMN IF EXISTS wide_network_key;
    `);
  }
}
