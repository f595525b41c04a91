import 'reflect-metadata';

import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, MODULE_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import fc from 'fast-check';
import { Client } from 'pg';

import { changedTables, databaseDigest } from './db-snapshot';

// Routes come from the module and controller metadata Nest's RouterExplorer reads, so a new route is fuzzed without
// being listed here.

export interface DiscoveredRoute {
  method: string;
  path: string; // e.g. /v1/items/:ref/fields/:field
  params: string[];
  // its metadata names the rules a write passes (the census)
  handler?: object;
}

type ModuleLike =
  { module?: unknown; imports?: unknown[]; controllers?: unknown[] } | (new (...args: never[]) => unknown);

function joinPath(...parts: string[]): string {
  const joined = parts
    .map((p) => p.replace(/^\/+|\/+$/g, ''))
    .filter((p) => p.length > 0)
    .join('/');
  return `/${joined}`;
}

export function discoverRoutes(root: ModuleLike): DiscoveredRoute[] {
  const seenModules = new Set<unknown>();
  const controllers = new Set<new (...args: never[]) => unknown>();
  const visit = (entry: unknown) => {
    if (!entry || seenModules.has(entry)) return;
    seenModules.add(entry);
    const dynamic =
      typeof entry === 'object' ? (entry as { module?: unknown; imports?: unknown[]; controllers?: unknown[] }) : null;
    const moduleClass = (dynamic ? dynamic.module : entry) as object | undefined;
    if (!moduleClass) return;
    const staticImports = (Reflect.getMetadata(MODULE_METADATA.IMPORTS, moduleClass) ?? []) as unknown[];
    const staticControllers = (Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, moduleClass) ?? []) as unknown[];
    for (const c of [...staticControllers, ...(dynamic?.controllers ?? [])]) {
      controllers.add(c as new (...args: never[]) => unknown);
    }
    for (const i of [...staticImports, ...(dynamic?.imports ?? [])]) visit(i);
    if (moduleClass !== entry) visit(moduleClass);
  };
  visit(root);
  const routes = new Map<string, DiscoveredRoute>();
  for (const controller of controllers) {
    const bases = [Reflect.getMetadata(PATH_METADATA, controller) ?? '/'].flat() as string[];
    const proto = controller.prototype as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === 'constructor' || typeof proto[name] !== 'function') continue;
      const handler = proto[name] as object;
      const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (paths === undefined || method === undefined) continue;
      for (const base of bases) {
        for (const sub of [paths].flat()) {
          const path = joinPath(base, sub);
          const verb = RequestMethod[method];
          const verbs = verb === 'ALL' ? ['GET', 'POST'] : [verb];
          for (const v of verbs) {
            routes.set(`${v} ${path}`, {
              method: v,
              path,
              params: [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]),
              handler,
            });
          }
        }
      }
    }
  }
  return [...routes.values()].sort((a, b) => `${a.path} ${a.method}`.localeCompare(`${b.path} ${b.method}`));
}

const FIELD_NAMES = [
  'project',
  'title',
  'spec',
  'session_id',
  'item_id',
  'ref',
  'code',
  'action',
  'reason',
  'content',
  'value',
  'name',
  'key',
  'status',
  'priority',
  'wip_cap',
  'blocker',
  'rationale',
  'comment',
  'resolution',
  'device_code',
  'machine_id',
  'machine_name',
  'harness',
  'model',
  'lane',
  'limit',
  'offset',
  'after',
  'event_name',
  'sections',
  'workflow',
  'definition',
  'payload',
  'detail',
  'gate_point',
  'only',
  'token',
  'password',
  '__proto__',
  'constructor',
  'prototype',
];

const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'a\ud800b',
  '\uffff',
  '\u202e',
  '💥',
  "'; DROP TABLE items;--",
  '%00',
  '%',
  '..',
  '../../etc/passwd',
  '2147483647',
  '2147483648',
  '-2147483649',
  '99999999999999999999',
  '-1',
  '0',
  '1e309',
  'NaN',
  'true',
  'null',
  '[]',
  '{}',
  'SHOP-1',
  'SHOP-0',
  'SHOP-99999999999',
  'shop',
  'BCDF-GHJK',
  'x'.repeat(300),
  'y'.repeat(70_000),
];

const nastyString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
);

const nastyNumber = fc.oneof(
  fc.integer(),
  fc.constantFrom(2147483648, -2147483649, 1e20, Number.MAX_SAFE_INTEGER, 1.5, -0, 0, 1, -1),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

const fieldName = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...FIELD_NAMES) },
  { weight: 1, arbitrary: nastyString },
);

const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    nastyString,
    nastyNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fieldName, tie('value'), { maxKeys: 5 }),
  ),
})).value;

const deepJson = fc
  .tuple(fc.integer({ min: 33, max: 5000 }), fc.boolean())
  .map(([depth, array]) =>
    array ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
  );

export interface FuzzCase {
  params: Record<string, string>;
  query: [string, string][];
  body: { kind: 'none' } | { kind: 'json'; text: string } | { kind: 'raw'; text: string; type: string };
  authenticated: boolean;
}

const bodyArb: fc.Arbitrary<FuzzCase['body']> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
  {
    weight: 6,
    arbitrary: fc
      .dictionary(fieldName, jsonValue, { maxKeys: 6 })
      .map((value) => ({ kind: 'json' as const, text: JSON.stringify(value) })),
  },
  {
    weight: 1,
    arbitrary: jsonValue.map((value) => ({ kind: 'json' as const, text: JSON.stringify(value) ?? 'null' })),
  },
  { weight: 1, arbitrary: deepJson.map((text) => ({ kind: 'json' as const, text })) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.string({ maxLength: 60 }),
        fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded'),
      )
      .map(([text, type]) => ({ kind: 'raw' as const, text, type })),
  },
);

export function fuzzCaseArb(route: DiscoveredRoute): fc.Arbitrary<FuzzCase> {
  const params = fc.record(
    Object.fromEntries(route.params.map((p) => [p, nastyString])) as Record<string, fc.Arbitrary<string>>,
  );
  const query = fc.array(fc.tuple(fieldName, fc.oneof(nastyString, nastyNumber.map(String))), { maxLength: 4 });
  return fc.record({
    params,
    query,
    body: bodyArb,
    authenticated: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  });
}

export interface FuzzTarget {
  url: string;
  token: string;
  databaseUrl: string;
}

export interface FuzzFailure {
  route: string;
  request: string;
  status: number;
  reason: string;
}

export interface FuzzStats {
  cases: number;
  routes: number;
  routes_hit: number;
  by_status: Record<string, number>;
  failures: FuzzFailure[];
  elapsed_ms: number;
  // Refused cases whose batch was all refusals, so that "no row changed" was checked for them.
  rows_checked: number;
}

function encodeSegment(value: string): string {
  // Lone surrogates cannot be percent-encoded by encodeURIComponent; send them as their UTF-8 replacement bytes.
  try {
    return encodeURIComponent(value);
  } catch {
    return encodeURIComponent(value.replace(/[\ud800-\udfff]/g, '\ufffd'));
  }
}

function buildPath(route: DiscoveredRoute, c: FuzzCase): string {
  let path = route.path.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => encodeSegment(c.params[name] ?? 'x') || 'x');
  if (c.query.length > 0) {
    path += `?${c.query.map(([k, v]) => `${encodeSegment(k)}=${encodeSegment(v)}`).join('&')}`;
  }
  return path;
}

const CODE_IN_HTML = /\b[a-z]+(?:_[a-z]+)+\b|\b(?:unauthorized|forbidden|conflict)\b/;

export class Fuzzer {
  private digest = '';
  readonly stats: FuzzStats = {
    cases: 0,
    routes: 0,
    routes_hit: 0,
    by_status: {},
    failures: [],
    elapsed_ms: 0,
    rows_checked: 0,
  };
  private readonly hit = new Set<string>();
  private client: Client | null = null;

  constructor(
    private readonly target: FuzzTarget,
    readonly routes: DiscoveredRoute[],
  ) {
    this.stats.routes = routes.length;
  }

  async open(): Promise<void> {
    this.client = new Client({ connectionString: this.target.databaseUrl });
    await this.client.connect();
    this.digest = await this.snapshot();
  }

  async close(): Promise<void> {
    await this.client?.end();
  }

  // Refused charge dispatches record their decision by design (decision_recorded: true): those events are not
  // "a row changed" by a refusal.
  private snapshot(): Promise<string> {
    return databaseDigest(this.client!);
  }

  private async send(route: DiscoveredRoute, c: FuzzCase): Promise<{ refused: boolean; shown: string }> {
    const path = buildPath(route, c);
    const headers: Record<string, string> = {};
    if (c.authenticated) headers.authorization = `Bearer ${this.target.token}`;
    let body: string | undefined;
    if (c.body.kind !== 'none' && route.method !== 'GET' && route.method !== 'HEAD') {
      body = c.body.text;
      headers['content-type'] = c.body.kind === 'json' ? 'application/json' : c.body.type;
    }
    const shown = `${route.method} ${path.slice(0, 200)} ${body === undefined ? '' : body.slice(0, 200)}`;
    const started = Date.now();
    let status = 0;
    let text = '';
    let type = '';
    try {
      const res = await fetch(`${this.target.url}${path}`, {
        method: route.method,
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(30000),
      });
      status = res.status;
      type = res.headers.get('content-type') ?? '';
      if (type.startsWith('text/event-stream')) await res.body?.cancel();
      else text = await res.text();
    } catch (err) {
      text = String(err);
    }
    this.stats.cases += 1;
    this.stats.elapsed_ms += Date.now() - started;
    this.stats.by_status[String(status)] = (this.stats.by_status[String(status)] ?? 0) + 1;
    this.hit.add(`${route.method} ${route.path}`);
    this.stats.routes_hit = this.hit.size;
    const fail = (reason: string) => {
      this.stats.failures.push({ route: `${route.method} ${route.path}`, request: shown, status, reason });
    };
    if (status === 0) fail(`no answer: ${text}`);
    else if (status >= 500) fail(`${status}: ${text.slice(0, 300)}`);
    else if (status >= 400) {
      if (type.includes('json')) {
        let code: unknown;
        try {
          const body = JSON.parse(text) as { code?: unknown; jsonrpc?: unknown; error?: { code?: unknown } };
          // /mcp speaks JSON-RPC (the MCP transport's own refusals): its code is the error object's number.
          code = body.jsonrpc === '2.0' && typeof body.error?.code === 'number' ? String(body.error.code) : body.code;
        } catch {
          code = undefined;
        }
        if (typeof code !== 'string' || code.length === 0) fail(`error body without a code: ${text.slice(0, 200)}`);
      } else if (!CODE_IN_HTML.test(text)) {
        fail(`error page without a code: ${text.slice(0, 200)}`);
      }
    }
    return { refused: status >= 400 && status < 500, shown };
  }

  // When every case of a batch was refused, no row may have changed; a batch with a success moves the baseline.
  async runBatch(batch: (readonly [DiscoveredRoute, FuzzCase])[]): Promise<void> {
    const results = await Promise.all(batch.map(([route, c]) => this.send(route, c)));
    const now = await this.snapshot();
    if (results.every((r) => r.refused)) {
      this.stats.rows_checked += results.length;
      if (now !== this.digest) {
        const changed = changedTables(this.digest, now);
        for (const r of results) {
          this.stats.failures.push({
            route: r.shown.split(' ').slice(0, 2).join(' '),
            request: r.shown,
            status: 0,
            reason: `refused, yet rows changed in ${changed.join(', ')}`,
          });
        }
      }
    }
    this.digest = now;
  }

  run(route: DiscoveredRoute, c: FuzzCase): Promise<void> {
    return this.runBatch([[route, c]]);
  }
}

// Fixed hostile shapes first (NUL, a lone surrogate, a 3000-deep body, huge path integers), then random cases.
export async function fuzzRoutes(
  fuzzer: Fuzzer,
  options: { numRuns: number; timeLimitMs: number; seed?: number; concurrency?: number },
): Promise<{ numRuns: number; interrupted: boolean; seed: number }> {
  const fixed: FuzzCase['body'][] = [
    { kind: 'json', text: '{"title":"a\\u0000b","name":"\\ud800"}' },
    { kind: 'json', text: `${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}` },
  ];
  const concurrency = options.concurrency ?? 1;
  const fixedCases = fuzzer.routes.flatMap((route) =>
    fixed.map((body, i) => {
      const value = ['\u0000', '99999999999999999999'][i];
      const params = Object.fromEntries(route.params.map((p) => [p, value]));
      const c: FuzzCase = { params, query: [['session_id', '99999999999']], body, authenticated: true };
      return [route, c] as const;
    }),
  );
  for (let i = 0; i < fixedCases.length; i += concurrency) await fuzzer.runBatch(fixedCases.slice(i, i + concurrency));
  const seed = options.seed ?? Date.now();
  const arb = fc.constantFrom(...fuzzer.routes).chain((route) => fuzzCaseArb(route).map((c) => [route, c] as const));
  // Seeded, reproducible with the printed seed. Failures are collected, not thrown: no shrinking, bounded time.
  const cases = fc.sample(arb, { numRuns: options.numRuns, seed });
  const deadline = Date.now() + options.timeLimitMs;
  let done = 0;
  while (done < cases.length && Date.now() < deadline) {
    const batch = cases.slice(done, done + concurrency);
    await fuzzer.runBatch(batch);
    done += batch.length;
  }
  return { numRuns: done, interrupted: done < cases.length, seed };
}
