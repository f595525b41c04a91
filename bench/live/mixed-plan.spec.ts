import { MIXED_KINDS, MixedOp, MixedWriter, nextStage, PoolItem, refSeq, statusPath } from './mixed-plan';

const STAGES = [
  { id: 'idea' },
  { id: 'planned' },
  { id: 'implementing' },
  { id: 'release' },
  { id: 'done', terminal: true },
  { id: 'cancelled', terminal: true },
];
const PATH = statusPath(STAGES);

const pool = (): PoolItem[] =>
  ['BN-7', 'BN-3', 'BN-12', 'BN-5'].map((ref) => ({
    ref,
    status: 'planned',
    priority: 'medium',
    workflow_id: 'issue',
  }));

const kindOf = (op: MixedOp) =>
  ({
    priority: 'priority',
    status: 'status',
    block: 'block',
    unblock: 'block',
    freeze: 'freeze',
    unfreeze: 'freeze',
    'dependency-add': 'dependency',
    'dependency-remove': 'dependency',
    create: 'create',
  })[op.op];

describe('bench/live mixed-writes plan', () => {
  it('should take the non-terminal stages in order, then done', () => {
    expect(PATH).toEqual(['idea', 'planned', 'implementing', 'release', 'done']);
  });

  it('should walk the stages forward to done, reopen at the first stage, and turn round at the ends', () => {
    expect(nextStage(PATH, 'planned', 1)).toEqual({ to: 'implementing', direction: 1 });
    expect(nextStage(PATH, 'release', 1)).toEqual({ to: 'done', direction: 1 });
    expect(nextStage(PATH, 'done', 1)).toEqual({ to: 'idea', direction: 1 });
    expect(nextStage(PATH, 'cancelled', -1)).toEqual({ to: 'idea', direction: 1 });
    expect(nextStage(PATH, 'planned', -1)).toEqual({ to: 'idea', direction: -1 });
    expect(nextStage(PATH, 'idea', -1)).toEqual({ to: 'planned', direction: 1 });
    expect(nextStage(['idea'], 'idea', 1)).toBeNull();
  });

  it('should cycle over the six kinds, starting at its own offset', () => {
    const writer = new MixedWriter(1, pool(), new Map([['issue', PATH]]));
    const kinds = Array.from({ length: 12 }, () => {
      const op = writer.next();
      writer.settle(op, 'done', op.op === 'dependency-add' ? { created: true } : {});
      return kindOf(op);
    });
    expect(kinds).toEqual([...MIXED_KINDS.slice(1), MIXED_KINDS[0], ...MIXED_KINDS.slice(1), MIXED_KINDS[0]]);
  });

  it('should undo its own block, freeze and dependency on the next write of the kind, and keep nothing it did not get', () => {
    const writer = new MixedWriter(0, pool(), new Map([['issue', PATH]]));
    const ops: MixedOp[] = [];
    for (let k = 0; k < 12; k++) {
      const op = writer.next();
      ops.push(op);
      // the first freeze is refused: the next freeze-kind write freezes again rather than unfreezing
      if (op.op === 'freeze' && k < 6) writer.settle(op, 'refused');
      else writer.settle(op, 'done', op.op === 'dependency-add' ? { created: true } : {});
    }
    const [block, unblock] = ops.filter((o) => o.op === 'block' || o.op === 'unblock');
    expect(block).toMatchObject({ op: 'block', ref: 'BN-7' });
    expect(unblock).toEqual({ op: 'unblock', ref: 'BN-7' });
    expect(ops.filter((o) => kindOf(o) === 'freeze').map((o) => o.op)).toEqual(['freeze', 'freeze']);
    const [add, remove] = ops.filter((o) => kindOf(o) === 'dependency');
    expect(add).toEqual({ op: 'dependency-add', dependent: 'BN-7', blocker: 'BN-3' });
    expect(remove).toEqual({ op: 'dependency-remove', dependent: 'BN-7', blocker: 'BN-3' });
  });

  it('should add edges only from a newer item to an older one, and not remove an edge that was already there', () => {
    const writer = new MixedWriter(0, pool(), new Map([['issue', PATH]]), MIXED_KINDS.indexOf('dependency'));
    const seen: MixedOp[] = [];
    for (let k = 0; k < 24; k++) {
      const op = writer.next();
      if (op.op === 'dependency-add' || op.op === 'dependency-remove') seen.push(op);
      // an edge the backlog already had: not ours to remove
      writer.settle(op, 'done', op.op === 'dependency-add' ? { created: false } : {});
    }
    expect(seen.length).toBe(4);
    for (const op of seen) {
      expect(op.op).toBe('dependency-add');
      if (op.op === 'dependency-add') expect(refSeq(op.dependent)).toBeGreaterThan(refSeq(op.blocker));
    }
  });

  it('should turn an item round after a refused move and follow the moves the daemon took', () => {
    const writer = new MixedWriter(0, pool().slice(0, 2), new Map([['issue', PATH]]), MIXED_KINDS.indexOf('status'));
    const statusOps = () => {
      for (;;) {
        const op = writer.next();
        if (op.op === 'status') return op;
        writer.settle(op, 'done', op.op === 'dependency-add' ? { created: true } : {});
      }
    };
    const first = statusOps();
    expect(first).toEqual({ op: 'status', ref: 'BN-7', to: 'implementing' });
    writer.settle(first, 'refused');
    const other = statusOps();
    expect(other).toEqual({ op: 'status', ref: 'BN-3', to: 'implementing' });
    writer.settle(other, 'done');
    expect(statusOps()).toEqual({ op: 'status', ref: 'BN-7', to: 'idea' });
    expect(statusOps()).toEqual({ op: 'status', ref: 'BN-3', to: 'release' });
  });

  it('should put the items it created into its pool', () => {
    const writer = new MixedWriter(2, pool().slice(0, 2), new Map([['issue', PATH]]), MIXED_KINDS.indexOf('create'));
    const create = writer.next();
    expect(create).toMatchObject({ op: 'create', title: 'Mixed w2 #1' });
    writer.settle(create, 'done', {
      item: { ref: 'BN-40', status: 'idea', priority: 'low', workflow_id: 'issue' },
    });
    expect(writer.poolSize).toBe(3);
  });
});
