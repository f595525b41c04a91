import { ItemSpec } from '../../libs/testing/src/backlog-factory';

// Deterministic PRNG (mulberry32): the same seed always yields the same backlog.
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface GeneratedEdge {
  blocker: number;
  dependent: number;
  satisfaction: string;
}

export interface GeneratedBacklog {
  items: ItemSpec[];
  // indexes into items
  edges: GeneratedEdge[];
}

const STATUS_MIX: [string, number][] = [
  ['done', 0.3],
  ['cancelled', 0.03],
  ['stopped', 0.01],
  ['idea', 0.1],
  ['refining-idea', 0.04],
  ['refined-idea', 0.06],
  ['plan-drafted', 0.03],
  ['refining-plan', 0.02],
  ['planning', 0.04],
  ['planned', 0.2],
  ['implementing', 0.05],
  ['reviewing-implementation', 0.03],
  ['reviewed-implementation', 0.03],
  ['polishing-implementation', 0.02],
  ['implemented', 0.02],
  ['release', 0.02],
];

function pick<T>(random: () => number, mix: [T, number][]): T {
  let r = random();
  for (const [value, weight] of mix) {
    if (r < weight) return value;
    r -= weight;
  }
  return mix[mix.length - 1][0];
}

// About two activation edges per item (blockers among earlier items, mostly nearby), a realistic status and
// priority mix, 2 % frozen, 2 % operator-blocked, 5 % epics, and one deep chain (50 long) per 1000 items.
export function generateBacklog(n: number, seed = 42): GeneratedBacklog {
  const random = mulberry32(seed);
  const base = Date.UTC(2025, 0, 1);
  const items: ItemSpec[] = [];
  for (let i = 0; i < n; i++) {
    items.push({
      title: `Item ${i + 1}`,
      status: pick(random, STATUS_MIX),
      priority: pick(random, [
        ['high', 0.2],
        ['medium', 0.6],
        ['low', 0.2],
      ]) as ItemSpec['priority'],
      workflow: random() < 0.05 ? 'epic' : 'issue',
      frozen: random() < 0.02,
      blocked: random() < 0.02,
      blockedReason: null,
      createdAt: new Date(base + i * 60_000 + Math.floor(random() * 30_000)).toISOString(),
    });
  }
  const edges: GeneratedEdge[] = [];
  const seen = new Set<number>();
  const add = (blocker: number, dependent: number) => {
    const key = blocker * n + dependent;
    if (blocker === dependent || seen.has(key)) return;
    seen.add(key);
    const r = random();
    edges.push({
      blocker,
      dependent,
      satisfaction: r < 0.85 ? 'status:done' : r < 0.95 ? 'status:implemented' : 'fact:merged',
    });
  };
  const chainStarts = new Set<number>();
  for (let c = 0; c < Math.floor(n / 1000); c++) chainStarts.add(Math.floor(random() * Math.max(1, n - 60)));
  for (const start of chainStarts) {
    for (let k = start + 1; k < Math.min(n, start + 50); k++) add(k - 1, k);
  }
  for (let i = 1; i < n && edges.length < 2 * n; i++) {
    const count = random() < 0.5 ? 1 : random() < 0.8 ? 2 : 3;
    for (let k = 0; k < count; k++) {
      const span = random() < 0.8 ? Math.min(i, 200) : i;
      add(i - 1 - Math.floor(random() * span), i);
    }
  }
  return { items, edges };
}
