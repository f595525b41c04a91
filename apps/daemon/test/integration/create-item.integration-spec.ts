import { Client } from 'pg';
import { DataSource } from 'typeorm';

import { createProject, workflowVersionId } from '@app/testing';

import { dataSourceOptions } from '../../src/database/data-source';
import { ItemsRepository } from '../../src/items/items.repository';
import { createMediumDatabase, MediumDatabase } from './setup/medium';

// A create inserts while the policy it checked its title against stands, with its COMMIT in the same round trip
// (ItemsService.create, ADR 0102): against a real PostgreSQL, on the daemon's own pipelining client.
describe('ItemsRepository.insertNext against the policy a create read', () => {
  let db: MediumDatabase;
  let daemon: DataSource;
  let other: Client;
  let items: ItemsRepository;
  let version: number;

  const item = (title: string) => ({
    project: 'crt',
    title,
    workflowId: 'issue',
    workflowVersionId: version,
    status: 'idea',
    source: 'test',
    values: {},
  });
  const project = async () =>
    (
      await other.query<{ next_sequence: number; n: number }>(
        `SELECT next_sequence, (SELECT count(*)::int FROM items WHERE project = 'crt') AS n FROM projects
          WHERE id = 'crt'`,
      )
    ).rows[0];

  beforeAll(async () => {
    db = await createMediumDatabase('create-item');
    const url = db.url;
    other = new Client({ connectionString: url });
    await other.connect();
    await createProject(other, { id: 'crt', prefix: 'CRT', policy: { title_max_length: 40 } });
    version = await workflowVersionId(other);
    daemon = await new DataSource(dataSourceOptions(url, 1, true)).initialize();
    items = new ItemsRepository(daemon);
  });

  afterAll(async () => {
    await daemon?.destroy();
    await other?.end();
    await db?.close();
  });

  it('should take the next sequence and commit with the insert while the policy it read stands', async () => {
    const before = await project();
    const [{ policy }] = (await other.query(`SELECT policy::text AS policy FROM projects WHERE id = 'crt'`)).rows;
    const inserted = await daemon.transaction((manager) =>
      items.insertNext(item('first'), manager, { policy, last: true }),
    );
    expect(inserted).toMatchObject({ title: 'first', project_sequence: before.next_sequence });
    expect(await project()).toEqual({ next_sequence: before.next_sequence + 1, n: before.n + 1 });
  });

  it('should insert nothing and leave the sequence when the policy changed since it was read', async () => {
    const [{ policy }] = (await other.query(`SELECT policy::text AS policy FROM projects WHERE id = 'crt'`)).rows;
    await other.query(`UPDATE projects SET policy = '{"title_max_length": 10}' WHERE id = 'crt'`);
    const before = await project();
    const inserted = await daemon.transaction((manager) =>
      items.insertNext(item('a title longer than ten'), manager, { policy, last: true }),
    );
    expect(inserted).toBeNull();
    expect(await project()).toEqual(before);
    // the connection goes on: a create against the policy as it now is
    const now = (await other.query(`SELECT policy::text AS policy FROM projects WHERE id = 'crt'`)).rows[0].policy;
    const next = await daemon.transaction((manager) =>
      items.insertNext(item('short'), manager, { policy: now, last: true }),
    );
    expect(next).toMatchObject({ title: 'short', project_sequence: before.next_sequence });
  });
});
