import { createProject, insertEdges, insertEnvironment, insertItems, insertRun } from '@app/testing';

import { TeamRepository } from '../../src/team/team.repository';
import { TransferRepository } from '../../src/transfer/transfer.repository';
import { createMediumDatabase, MediumDatabase } from './setup/medium';

// The team repository's organization walls and its last-admin guard, and the transfer repository's conditional
// statements (a flow id taken elsewhere, a replace that clears one project only, refs resolved across projects),
// on a real database. One database for both: each arranges rows of its own.
describe('team and transfer repositories', () => {
  let db: MediumDatabase;

  beforeAll(async () => {
    db = await createMediumDatabase('team-transfer');
  });

  afterAll(async () => {
    await db?.close();
  });

  describe('TeamRepository: organization walls', () => {
    let sut: TeamRepository;
    const id: Record<string, number> = {};
    const org: Record<string, number> = {};

    beforeAll(async () => {
      sut = new TeamRepository(db.dataSource);
      for (const slug of ['north', 'south']) org[slug] = (await sut.insertOrganization(slug, slug))!;
      // alice and erin administer north; bob is a member of north; carol of south; dave of both
      const people: [string, [string, 'admin' | 'member'][]][] = [
        ['alice', [['north', 'admin']]],
        ['erin', [['north', 'admin']]],
        ['bob', [['north', 'member']]],
        ['carol', [['south', 'member']]],
        [
          'dave',
          [
            ['north', 'member'],
            ['south', 'member'],
          ],
        ],
      ];
      for (const [name, memberships] of people) {
        const { rows } = await db.client.query<{ id: number }>(
          `INSERT INTO actors (name, kind, status) VALUES ($1, 'person', 'active') RETURNING id`,
          [name],
        );
        id[name] = rows[0].id;
        for (const [slug, role] of memberships) {
          await db.client.query(
            `INSERT INTO memberships (organization_id, actor_id, role, status) VALUES ($1, $2, $3, 'active')`,
            [org[slug], id[name], role],
          );
        }
      }
    });

    const as = (name: string, isAdmin = false, scope: string | null = null) => ({
      id: id[name],
      isAdmin,
      scope: scope === null ? null : org[scope],
    });

    it("an admin sees the people wholly inside their organizations, never past another organization's wall", async () => {
      const names = (await sut.listActors(as('alice'))).map((a) => a.name).sort();
      expect(names).toEqual(['alice', 'bob', 'erin']);
      // carol (south only) and dave (also south) read the same as a name that does not exist
      expect(await sut.visibleActorByName(as('alice'), 'carol')).toBeNull();
      expect(await sut.visibleActorByName(as('alice'), 'dave')).toBeNull();
      expect(await sut.visibleActorByName(as('alice'), 'nobody')).toBeNull();
      expect(await sut.isInView(as('alice'), id.dave)).toBe(false);
      expect(await sut.isInView(as('alice'), id.bob)).toBe(true);
    });

    it('a member sees only themselves; a server administrator sees everyone', async () => {
      expect((await sut.listActors(as('bob'))).map((a) => a.name)).toEqual(['bob']);
      expect((await sut.listActors(as('bob', true))).map((a) => a.name)).toEqual(
        expect.arrayContaining(['alice', 'bob', 'carol', 'dave', 'erin']),
      );
    });

    it('a server administrator confined to one organization sees only the people wholly inside it', async () => {
      // issue 36: a server admin's machine credential approved for north
      expect((await sut.listActors(as('bob', true, 'north'))).map((a) => a.name).sort()).toEqual([
        'alice',
        'bob',
        'erin',
      ]);
      expect(await sut.visibleActorByName(as('bob', true, 'north'), 'carol')).toBeNull();
      expect(await sut.visibleActorByName(as('bob', true, 'north'), 'dave')).toBeNull();
      expect(await sut.isInView(as('bob', true, 'south'), id.carol)).toBe(true);
      expect(await sut.isInView(as('bob', true, 'south'), id.alice)).toBe(false);
      // an organization admin confined to an organization they do not administer sees only themselves
      expect((await sut.listActors(as('alice', false, 'south'))).map((a) => a.name)).toEqual(['alice']);
    });

    it('a taken slug creates nothing', async () => {
      expect(await sut.insertOrganization('north', 'again')).toBeNull();
    });

    it('two admins removed at once: one goes, the last admin stays', async () => {
      const results = await Promise.all([
        sut.removeMembership(org.north, id.alice),
        sut.removeMembership(org.north, id.erin),
      ]);
      expect(results.sort()).toEqual(['last_admin', 'removed']);
      const { rows } = await db.client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM memberships WHERE organization_id = $1 AND role = 'admin'`,
        [org.north],
      );
      expect(rows[0].n).toBe(1);
      expect(await sut.removeMembership(org.north, id.carol)).toBe('absent');
    });
  });

  describe('TransferRepository', () => {
    let sut: TransferRepository;

    beforeAll(async () => {
      sut = new TransferRepository(db.dataSource);
      await createProject(db.client, { id: 'imp', prefix: 'IMP' });
      await createProject(db.client, { id: 'oth', prefix: 'OTH' });
    });

    it('a flow id another project holds is refused, and nothing of it changes', async () => {
      const flow = { id: 'ship', name: 'Ship', stages: [] } as never;
      expect(await db.dataSource.transaction((m) => sut.insertFlow('oth', flow, m))).toBe(true);
      expect(
        await db.dataSource.transaction((m) => sut.insertFlow('imp', { ...(flow as object), name: 'x' } as never, m)),
      ).toBe(false);
      const { rows } = await db.client.query(`SELECT project, name FROM deployment_flows WHERE id = 'ship'`);
      expect(rows).toEqual([{ project: 'oth', name: 'Ship' }]);
    });

    it("a replace clears one project's rows only, and keeps the other projects' edges into it known", async () => {
      const [mine] = await insertItems(db.client, 'imp', [{ title: 'mine' }]);
      const [theirs] = await insertItems(db.client, 'oth', [{ title: 'theirs' }]);
      await insertEdges(db.client, [{ blocker: mine.id, dependent: theirs.id }]);
      await insertEnvironment(db.client, { project: 'imp', name: 'production' });
      await insertEnvironment(db.client, { project: 'oth', name: 'production' });
      await insertRun(db.client, { project: 'oth', environment: 'production', items: [theirs.id] });

      await db.dataSource.transaction(async (m) => {
        const existing = await sut.projectForUpdate('imp', m);
        expect(existing).toMatchObject({ id: 'imp', public_item_prefix: 'IMP' });
        expect(Number(existing!.items)).toBe(1);
        expect(await sut.externalEdges('imp', m)).toEqual([{ id: expect.any(Number), sequence: mine.seq }]);
        await sut.clearProject('imp', 'IMP', m);
      });

      const count = async (table: string, project: string) =>
        (await db.client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE project = $1`, [project]))
          .rows[0].n;
      expect(await count('items', 'imp')).toBe(0);
      expect(await count('environments', 'imp')).toBe(0);
      expect(await count('items', 'oth')).toBe(1);
      expect(await count('environments', 'oth')).toBe(1);
      expect(await count('deployment_runs', 'oth')).toBe(1);
      expect(await count('deployment_flows', 'oth')).toBe(1);
    });

    it('refs of any project resolve (prefix in any case); unknown refs are left out', async () => {
      const [other] = await insertItems(db.client, 'oth', [{ title: 'resolvable' }]);
      const found = await db.dataSource.transaction((m) =>
        sut.resolveExisting([other.ref, other.ref.toLowerCase(), 'OTH-99999', 'NOPE-1'], m),
      );
      expect(found).toEqual(
        expect.arrayContaining([
          { ref: other.ref, id: other.id, project: 'oth' },
          { ref: other.ref.toLowerCase(), id: other.id, project: 'oth' },
        ]),
      );
      expect(found).toHaveLength(2);
    });
  });
});
