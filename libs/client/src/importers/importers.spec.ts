import {
  beadsFixture,
  bigBeadsFixture,
  taskwarriorFixture,
  toJsonl,
  toTaskExport,
} from '@app/testing/tracker-fixtures';

import { buildImportDocument } from './backlog-document';
import { convertBeads } from './beads';
import { ImportFormatError, importedFrom, isoTime } from './conversion';
import { convertTaskwarrior } from './taskwarrior';

type Json = Record<string, unknown>;
const NOW = Date.parse('2026-06-01T00:00:00Z');

// What svc's frontier would call runnable on the converted items, by its rule (reference-frontier.ts): a candidate
// status, not frozen, no blocked flag, every activation edge's blocker done.
function svcRunnable(plan: ReturnType<typeof buildImportDocument>): string[] {
  const items = plan.document.items as Json[];
  const status = new Map(items.map((i) => [i.ref as string, i.status as string]));
  const deps = (plan.document.dependencies as Json[]).filter((d) => d.gate_point === 'activation');
  return items
    .filter((i) => !['done', 'cancelled', 'stopped', 'failed'].includes(i.status as string))
    .filter((i) => !i.frozen && !i.blocked)
    .filter((i) => deps.filter((d) => d.dependent === i.ref).every((d) => status.get(d.blocker as string) === 'done'))
    .map((i) => i.ref as string);
}

describe('beads importer', () => {
  const conversion = convertBeads(toJsonl(beadsFixture()));
  const plan = buildImportDocument(conversion, { id: 'bring', prefix: 'BR' }, null);
  const byExt = (id: string) =>
    (plan.document.items as Json[]).find((i) => i.ref === plan.refs.get(id)) as Json & { sections: Json[] };

  it('should map statuses, priorities, types and the fields with a place in svc', () => {
    expect(byExt('bd-e1')).toMatchObject({
      workflow_id: 'epic',
      priority: 'high',
      status: 'refined-idea',
      owner: 'alice',
    });
    expect(byExt('bd-p1')).toMatchObject({ status: 'implementing', priority: 'medium' });
    expect(byExt('bd-s1')).toMatchObject({ status: 'refined-idea', blocked: 1, blocked_reason: 'blocked in beads' });
    expect(byExt('bd-f1')).toMatchObject({ status: 'refined-idea', frozen: 1 });
    expect(byExt('bd-h1')).toMatchObject({ blocked: 1, blocked_reason: 'beads status hooked' });
    expect(byExt('bd-x1')).toMatchObject({
      status: 'done',
      resolution: 'completed',
      resolution_comment: 'Fixed in abc123',
      priority: 'low',
      created_at: '2026-01-05T09:01:00.000Z',
    });
    expect(byExt('bd-b1')).toMatchObject({ workflow_id: 'issue', priority: 'high', body: 'Description of bd-b1' });
    const names = byExt('bd-e1').sections.map((s) => s.section_name);
    expect(names).toEqual(['design', 'acceptance-criteria', 'notes', 'imported-from']);
    const meta = byExt('bd-e1').sections.find((s) => s.section_name === 'imported-from')!.content as string;
    expect(meta.split('\n')).toEqual(
      expect.arrayContaining(['beads bd-e1', 'type: epic', 'priority: 0', 'labels: migration, cli', 'assignee: alice']),
    );
    expect(importedFrom(byExt('bd-e1').sections as never)).toEqual({ source: 'beads', external_id: 'bd-e1' });
    const comments = byExt('bd-q1').sections.find((s) => s.section_name === 'comments')!.content as string;
    expect(comments).toContain('carol (2026-01-05T09:06:00.000Z):\nsecond\ncomment');
    const links = byExt('bd-d1').sections.find((s) => s.section_name === 'links')!.content as string;
    expect(links).toBe(`- discovered-from bd-b1 (${plan.refs.get('bd-b1')})`);
  });

  it('should skip and count tombstones and dependencies on issues outside the file', () => {
    expect(plan.refs.has('bd-t1')).toBe(false);
    expect(conversion.skipped.map((s) => s.reason)).toEqual([
      'tombstone (deleted in beads)',
      'blocks bd-t1: not an issue of the file (or a tombstone): left out',
      'blocks external:other-9: not an issue of the file (or a tombstone): left out',
    ]);
  });

  it('should make blocks activation edges, parent-child closure edges and pass blocking down to children', () => {
    const r = (id: string) => plan.refs.get(id)!;
    const edges = (plan.document.dependencies as Json[]).map(
      (d) => `${d.dependent as string}<${d.blocker as string}@${d.gate_point as string}`,
    );
    expect(edges).toEqual(
      expect.arrayContaining([
        `${r('bd-e1')}<${r('bd-b1')}@activation`,
        `${r('bd-e1')}<${r('bd-c1')}@closure`,
        `${r('bd-c1')}<${r('bd-g1')}@closure`,
        `${r('bd-c1')}<${r('bd-b1')}@activation`,
        `${r('bd-g1')}<${r('bd-b1')}@activation`,
      ]),
    );
  });

  it("should leave svc's runnable set among the open issues equal to bd ready", () => {
    expect(conversion.ready.sort()).toEqual(['bd-b1', 'bd-d1', 'bd-w1']);
    const open = new Set(
      beadsFixture()
        .filter((i) => i.status === 'open')
        .map((i) => plan.refs.get(i.id as string)),
    );
    const runnable = svcRunnable(plan).filter((ref) => open.has(ref));
    expect(runnable.sort()).toEqual(conversion.ready.map((id) => plan.refs.get(id)).sort());
  });

  it('should hold the ready rule on a big generated file too', () => {
    const big = convertBeads(toJsonl(bigBeadsFixture(1500, 600, 7)));
    const bigPlan = buildImportDocument(big, { id: 'big', prefix: 'BG' }, null);
    const rows = bigBeadsFixture(1500, 600, 7);
    const open = new Set(rows.filter((i) => i.status === 'open').map((i) => bigPlan.refs.get(i.id as string)));
    const runnable = svcRunnable(bigPlan).filter((ref) => open.has(ref));
    expect(runnable.sort()).toEqual(big.ready.map((id) => bigPlan.refs.get(id)!).sort());
    expect(big.ready.length).toBeGreaterThan(10);
  });

  it('should keep a closed parent of an open child as a link, not a closure edge svc would refuse', () => {
    const rows = [
      { id: 'bd-p', title: 'Closed parent', status: 'closed' },
      {
        id: 'bd-k',
        title: 'Open child',
        status: 'open',
        dependencies: [{ depends_on_id: 'bd-p', type: 'parent-child' }],
      },
    ];
    const c = convertBeads(toJsonl(rows));
    expect(c.edges).toEqual([]);
    expect(c.items[1].links).toEqual([{ type: 'child of (closed before this child)', external_id: 'bd-p' }]);
    expect(c.ready).toEqual(['bd-k']);
  });

  it('should refuse a malformed line with its number', () => {
    const lines = toJsonl(beadsFixture()).split('\n');
    lines.splice(4, 0, '{"id": "bd-zz", "title": ');
    expect(() => convertBeads(lines.join('\n'))).toThrow(ImportFormatError);
    expect(() => convertBeads(lines.join('\n'))).toThrow(/^line 5: not valid JSON/);
    expect(() => convertBeads('{"title":"no id"}\n')).toThrow('line 1: has no id');
    expect(() => convertBeads('{"id":"bd-1","title":"a"}\n{"id":"bd-1","title":"b"}\n')).toThrow(
      'line 2: bd-1 appears again (first on line 1)',
    );
  });

  it('should change nothing on a re-import of the same file and apply the edits of a changed one', () => {
    // the export of the imported project, as the daemon writes it back (its timestamps in its own form)
    const exported = JSON.parse(JSON.stringify(plan.document)) as Json;
    for (const item of exported.items as Json[]) {
      if (item.created_at) item.created_at = (item.created_at as string).replace('Z', '+00:00');
      item.workflow_version = 1;
    }
    (exported.project as Json).next_sequence = (exported.items as Json[]).length + 1;
    const again = buildImportDocument(convertBeads(toJsonl(beadsFixture())), { id: 'bring', prefix: 'BR' }, exported);
    expect(again).toMatchObject({
      changed: false,
      created: 0,
      updated: 0,
      dependencies_added: 0,
      dependencies_removed: 0,
    });

    const edited = beadsFixture().map((i) =>
      i.id === 'bd-b1' ? { ...i, title: 'Blocker renamed', status: 'closed' } : i,
    );
    edited.push({ id: 'bd-n1', title: 'New one', status: 'open', priority: 2 });
    const e1 = edited.find((i) => i.id === 'bd-e1')!;
    e1.dependencies = [];
    const third = buildImportDocument(convertBeads(toJsonl(edited)), { id: 'bring', prefix: 'BR' }, exported);
    expect(third).toMatchObject({
      changed: true,
      created: 1,
      updated: 1,
      dependencies_added: 0,
      dependencies_removed: 3,
    });
    const refs = (third.document.items as Json[]).map((i) => i.ref);
    expect(new Set(refs).size).toBe(refs.length);
    expect(third.refs.get('bd-b1')).toBe(plan.refs.get('bd-b1'));
    expect(third.refs.get('bd-n1')).toBe(`BR-${(exported.items as Json[]).length + 1}`);
  });
});

describe('taskwarrior importer', () => {
  const conversion = convertTaskwarrior(toTaskExport(taskwarriorFixture(NOW)), NOW);
  const plan = buildImportDocument(conversion, { id: 'tw', prefix: 'TW' }, null);
  const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
  const item = (n: number) =>
    (plan.document.items as Json[]).find((i) => i.ref === plan.refs.get(uuid(n))) as Json & { sections: Json[] };

  it('should map statuses, priorities and the fields', () => {
    expect(item(1)).toMatchObject({ priority: 'high', status: 'refined-idea', frozen: 0, title: 'Pending, high' });
    expect(item(2)).toMatchObject({ priority: 'medium' });
    expect(item(3)).toMatchObject({ priority: 'low' });
    expect(item(5)).toMatchObject({ status: 'done', resolution: 'completed' });
    expect(item(6)).toMatchObject({ status: 'cancelled', resolution: 'wontfix' });
    expect(item(8)).toMatchObject({ frozen: 1 });
    expect(item(9)).toMatchObject({ frozen: 1 });
    expect(item(11)).toMatchObject({ frozen: 1 });
    expect(item(12)).toMatchObject({ frozen: 1 });
    expect(item(13)).toMatchObject({ status: 'implementing', created_at: isoTime('20260105T091300Z') });
    const meta = item(1).sections.find((s) => s.section_name === 'imported-from')!.content as string;
    expect(meta.split('\n')).toEqual(
      expect.arrayContaining([
        `taskwarrior ${uuid(1)}`,
        'project: home.garden',
        'tags: outdoor, weekend',
        'priority: H',
      ]),
    );
    const notes = item(13).sections.find((s) => s.section_name === 'comments')!.content as string;
    expect(notes).toContain('first note');
    expect(notes).toContain('second note');
    const deleted = item(7).sections.find((s) => s.section_name === 'links')!.content as string;
    expect(deleted).toContain('depends on (deleted, not blocking)');
  });

  it('should read depends as an array and as a comma string', () => {
    const edges = (plan.document.dependencies as Json[]).map((d) => `${d.dependent as string}<${d.blocker as string}`);
    const r = (n: number) => plan.refs.get(uuid(n))!;
    expect(edges.sort()).toEqual(
      [
        `${r(2)}<${r(1)}`,
        `${r(3)}<${r(5)}`,
        `${r(4)}<${r(1)}`,
        `${r(4)}<${r(5)}`,
        `${r(10)}<${r(8)}`,
        `${r(14)}<${r(11)}`,
      ].sort(),
    );
  });

  it("should leave svc's runnable set equal to +READY", () => {
    // checked against Taskwarrior 2.6.2: `task import` of this file, then `task +READY export`
    expect(conversion.ready.sort()).toEqual([1, 3, 7, 13].map(uuid).sort());
    expect(svcRunnable(plan).sort()).toEqual(conversion.ready.map((u) => plan.refs.get(u)!).sort());
  });

  it('should refuse a malformed line with its number, and take a pretty-printed export', () => {
    const lines = toTaskExport(taskwarriorFixture(NOW)).split('\n');
    lines[3] = '{"uuid": "nope", ';
    expect(() => convertTaskwarrior(lines.join('\n'), NOW)).toThrow(/^line 4: not valid JSON/);
    const bad = toTaskExport([{ ...taskwarriorFixture(NOW)[0], status: 'paused' }]);
    expect(() => convertTaskwarrior(bad, NOW)).toThrow(
      'line 2: 00000000-0000-4000-8000-000000000001 has an unknown status "paused"',
    );
    const pretty = JSON.stringify(taskwarriorFixture(NOW), null, 2);
    expect(convertTaskwarrior(pretty, NOW).items).toHaveLength(14);
  });
});
