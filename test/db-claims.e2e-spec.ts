import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

import {
  CliResult,
  createTestDatabase,
  DaemonProcess,
  parseJson,
  runSvc,
  startDaemonProcess,
  svcEnv,
  TestDatabase,
} from '@app/testing';

interface StoredColumns {
  db_mutation_profile: string;
  db_compatibility_attestation: string;
  updated_at: Date;
}

interface ClaimView {
  item_id: string;
  claim: Record<string, unknown>;
  reviewed: boolean;
  reviewed_reason: string;
  malformed: boolean;
  malformed_halves: string[];
  db_mutation_profile: string;
  db_compatibility_attestation: string;
}

interface ErrorBody {
  code: string;
  message: string;
  fields?: { field: string; code: string; message: string }[];
}

const PROJECT = 'dbclaims';
const PREFIX = 'DBC';

function declaredClaim(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    state: 'declared',
    model_name: 'BacklogItem',
    mutation_intent: 'apply',
    migration_modules: ['apps/daemon/src/database/migrations/1700000000000-AddDeployStage.ts'],
    migration_strategy: 'additive_only',
    migration_strategy_justification: 'one nullable column, no table rewrite',
    compatibility_class: 'pre_merge_safe',
    schema_kinds: ['additive'],
    affected_surfaces: [{ table: 'items', columns: ['deploy_stage'] }],
    pre_merge_readers_writers: [
      { path: 'apps/daemon/src/database/migrations/1700000000000-AddDeployStage.ts', role: 'writer' },
      { path: 'apps/daemon/src/frontier/frontier.repository.ts', role: 'reader' },
    ],
    invariants: ['readers that do not know deploy_stage ignore it'],
    rehearsal_commands: ['npm run typeorm migration:run'],
    residual_risk_notes: 'none known',
    ...overrides,
  };
}

describe('DB claims (e2e)', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let env: Record<string, string>;
  let sql: Client;
  const workdir = mkdtempSync(join(tmpdir(), 'svc-dbclaims-'));

  // Items through the backlog API, pinned to the seeded issue workflow (its db_claim_prose_gate is
  // enter [refined-idea, planned], exit [refining-plan, polishing-implementation]).
  async function createItem(fields: Record<string, string> = {}): Promise<string> {
    const res = await http('POST', '/v1/items', { project: PROJECT, title: 'a backlog item', ...fields });
    const body = (await res.json()) as { item_id: string };
    if (res.status !== 201) throw new Error(`item not created: ${res.status} ${JSON.stringify(body)}`);
    return body.item_id;
  }

  async function stored(ref: string): Promise<StoredColumns> {
    const { rows } = await sql.query<StoredColumns>(
      `SELECT db_mutation_profile, db_compatibility_attestation, updated_at FROM items
        WHERE project = $1 AND project_sequence = $2`,
      [PROJECT, Number(ref.split('-')[1])],
    );
    return rows[0];
  }

  async function setColumns(ref: string, profile: string, attestation: string): Promise<void> {
    await sql.query(
      `UPDATE items SET db_mutation_profile = $3, db_compatibility_attestation = $4
        WHERE project = $1 AND project_sequence = $2`,
      [PROJECT, Number(ref.split('-')[1]), profile, attestation],
    );
  }

  function http(method: string, path: string, body?: unknown, token = daemon.token): Promise<Response> {
    return fetch(`${daemon.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  function claimFile(payload: unknown, name = `claim-${Math.random().toString(36).slice(2)}.json`): string {
    const path = join(workdir, name);
    writeFileSync(path, typeof payload === 'string' ? payload : JSON.stringify(payload));
    return path;
  }

  function amend(ref: string, payload: unknown, extra: string[] = []): Promise<CliResult> {
    return runSvc(['db-claim-amend', '--item', ref, '--file', claimFile(payload), '--json', ...extra], { env });
  }

  // On failure the diff shows what svc printed.
  function expectOk(result: CliResult): void {
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  }

  function stderrBody(result: CliResult): ErrorBody {
    return JSON.parse(result.stderr) as ErrorBody;
  }

  // Oldest first, through `svc events query`.
  async function events(ref: string): Promise<{ payload: Record<string, unknown>; session_id: number | null }[]> {
    const result = await runSvc(['events', 'query', '--event-name', 'DbClaimAmended', '--item', ref, '--json'], {
      env,
    });
    expectOk(result);
    const body = parseJson<{ events: { payload: Record<string, unknown>; session_id: number | null }[] }>(result);
    return body.events.map((e) => ({ payload: e.payload, session_id: e.session_id })).reverse();
  }

  beforeAll(async () => {
    db = await createTestDatabase('server', 'dbclaims');
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url } });
    env = svcEnv(daemon);
    sql = new Client({ connectionString: db.url });
    await sql.connect();
    const project = await http('POST', '/v1/projects', { id: PROJECT, name: 'DB claims', public_item_prefix: PREFIX });
    expect(project.status).toBe(201);
  });

  afterAll(async () => {
    await sql?.end();
    await daemon?.stop();
    await db?.drop();
  });

  describe('a declared claim', () => {
    it('should split the payload into both halves and print the stored claim', async () => {
      const ref = await createItem();
      const result = await amend(ref, declaredClaim());
      expectOk(result);
      const view = parseJson<ClaimView>(result);
      const row = await stored(ref);
      const profile = JSON.parse(row.db_mutation_profile) as Record<string, unknown>;
      const attestation = JSON.parse(row.db_compatibility_attestation) as Record<string, unknown>;
      expect(profile).toEqual({
        state: 'declared',
        model_name: 'BacklogItem',
        mutation_intent: 'apply',
        migration_modules: ['apps/daemon/src/database/migrations/1700000000000-AddDeployStage.ts'],
        migration_strategy: 'additive_only',
        migration_strategy_justification: 'one nullable column, no table rewrite',
        schema_kinds: ['additive'],
        affected_surfaces: [{ table: 'items', columns: ['deploy_stage'] }],
      });
      expect(attestation).toEqual({
        compatibility_class: 'pre_merge_safe',
        pre_merge_readers_writers: declaredClaim().pre_merge_readers_writers,
        invariants: ['readers that do not know deploy_stage ignore it'],
        rehearsal_commands: ['npm run typeorm migration:run'],
        residual_risk_notes: 'none known',
        frozen_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      });
      // frozen_at is the database clock of the writing transaction, the same instant as updated_at.
      expect(attestation.frozen_at).toBe(row.updated_at.toISOString());
      expect(view).toEqual({
        item_id: ref,
        claim: {
          ...declaredClaim(),
          reviewed_negative: null,
          validated_at: null,
          reason: null,
          frozen_at: attestation.frozen_at,
          rehearsal_outcomes: null,
          class_escalations: null,
        },
        reviewed: false,
        reviewed_reason: 'declared',
        malformed: false,
        malformed_halves: [],
        db_mutation_profile: row.db_mutation_profile,
        db_compatibility_attestation: row.db_compatibility_attestation,
      });
    });

    it('should read the payload from stdin and print a table without --json', async () => {
      const ref = await createItem();
      const result = await runSvc(['db-claim-amend', '--item', ref, '--stdin'], {
        env,
        input: JSON.stringify(declaredClaim()),
      });
      expectOk(result);
      expect(result.stdout).toMatch(/state\s+declared/);
      expect(result.stdout).toMatch(/reviewed\s+false \(declared\)/);
      expect(result.stdout).toContain('items(deploy_stage)');
      expect(result.stdout).toContain('apps/daemon/src/frontier/frontier.repository.ts (reader)');
      expect(JSON.parse((await stored(ref)).db_mutation_profile)).toMatchObject({ state: 'declared' });
    });

    it('should answer the same stored claim over HTTP', async () => {
      const ref = await createItem();
      const res = await http('POST', `/v1/items/${ref}/db-claim`, declaredClaim());
      expect(res.status).toBe(200);
      const view = (await res.json()) as ClaimView;
      const get = await http('GET', `/v1/items/${ref}/db-claim`);
      expect(get.status).toBe(200);
      expect(await get.json()).toEqual(view);
    });

    it('should restamp frozen_at and keep rehearsal_outcomes and class_escalations on a later amendment', async () => {
      const ref = await createItem();
      await setColumns(
        ref,
        '{"state":"declared"}',
        JSON.stringify({
          frozen_at: '2020-01-01T00:00:00.000Z',
          rehearsal_outcomes: [{ command: 'npm run typeorm migration:run', ok: true }],
          class_escalations: [],
        }),
      );
      const result = await amend(ref, declaredClaim({ residual_risk_notes: 'revised' }));
      expectOk(result);
      const attestation = JSON.parse((await stored(ref)).db_compatibility_attestation) as Record<string, unknown>;
      expect(attestation).toMatchObject({
        residual_risk_notes: 'revised',
        rehearsal_outcomes: [{ command: 'npm run typeorm migration:run', ok: true }],
        class_escalations: [],
      });
      expect(attestation.frozen_at).not.toBe('2020-01-01T00:00:00.000Z');
    });
  });

  describe('the negative shortcut', () => {
    it('should store state none with reviewed_negative and validated_at on the profile', async () => {
      const ref = await createItem();
      const result = await runSvc(
        ['db-claim-amend', '--item', ref, '--state', 'none', '--reason', 'docs-only change', '--json'],
        { env },
      );
      expectOk(result);
      const row = await stored(ref);
      expect(JSON.parse(row.db_mutation_profile)).toEqual({
        state: 'none',
        reviewed_negative: true,
        validated_at: row.updated_at.toISOString(),
        reason: 'docs-only change',
      });
      expect(row.db_compatibility_attestation).toBe('{}');
      expect(parseJson<ClaimView>(result)).toMatchObject({
        reviewed: true,
        reviewed_reason: 'reviewed_negative',
        claim: { state: 'none', reviewed_negative: true, frozen_at: null },
      });
    });

    it('should stay mutable: a second negative claim replaces the first', async () => {
      const ref = await createItem();
      await runSvc(['db-claim-amend', '--item', ref, '--state', 'none', '--reason', 'first'], { env });
      const second = await runSvc(['db-claim-amend', '--item', ref, '--state', 'none', '--reason', 'second'], { env });
      expect(second.code).toBe(0);
      expect(JSON.parse((await stored(ref)).db_mutation_profile)).toMatchObject({ reason: 'second' });
    });

    it('should drop a declared claim, its frozen_at included', async () => {
      const ref = await createItem();
      await amend(ref, declaredClaim());
      const result = await runSvc(
        ['db-claim-amend', '--item', ref, '--state', 'none', '--reason', 'reverted', '--json'],
        { env },
      );
      expectOk(result);
      expect((await stored(ref)).db_compatibility_attestation).toBe('{}');
      expect(parseJson<ClaimView>(result).claim).toMatchObject({ compatibility_class: null, frozen_at: null });
    });
  });

  describe('replacement', () => {
    it('should replace a reviewed-negative profile and remove its attestation of review', async () => {
      const ref = await createItem();
      await runSvc(['db-claim-amend', '--item', ref, '--state', 'none', '--reason', 'looked like none'], { env });
      expect(((await (await http('GET', `/v1/items/${ref}/db-claim`)).json()) as ClaimView).reviewed).toBe(true);
      const result = await amend(ref, declaredClaim());
      expectOk(result);
      const profile = JSON.parse((await stored(ref)).db_mutation_profile) as Record<string, unknown>;
      expect(profile.state).toBe('declared');
      expect(profile).not.toHaveProperty('reviewed_negative');
      expect(profile).not.toHaveProperty('validated_at');
      const view = (await (await http('GET', `/v1/items/${ref}/db-claim`)).json()) as ClaimView;
      expect(view).toMatchObject({ reviewed: false, reviewed_reason: 'declared' });
    });

    it('should let a plain state none payload clear the review too', async () => {
      const ref = await createItem();
      await runSvc(['db-claim-amend', '--item', ref, '--state', 'none', '--reason', 'x'], { env });
      const result = await amend(ref, { state: 'none' });
      expect(parseJson<ClaimView>(result)).toMatchObject({ reviewed: false, reviewed_reason: 'bare_default' });
    });
  });

  describe('refusals', () => {
    let ref: string;
    let before: StoredColumns;

    beforeAll(async () => {
      ref = await createItem();
      expect((await amend(ref, declaredClaim())).code).toBe(0);
      before = await stored(ref);
    });

    afterEach(async () => {
      // Nothing written: both halves and updated_at are as they were.
      expect(await stored(ref)).toEqual(before);
    });

    const missing = (field: string) => {
      const claim = declaredClaim();
      delete claim[field];
      return claim;
    };

    it.each([
      [
        'migration_strategy missing for declared apply',
        missing('migration_strategy'),
        'db_claim_invalid',
        ['migration_strategy'],
      ],
      [
        'the four pre_merge_safe fields missing',
        { state: 'declared', compatibility_class: 'pre_merge_safe' },
        'db_claim_invalid',
        ['pre_merge_readers_writers', 'invariants', 'rehearsal_commands', 'residual_risk_notes'],
      ],
      [
        'an empty invariants list for pre_merge_safe',
        declaredClaim({ invariants: [] }),
        'db_claim_invalid',
        ['invariants'],
      ],
      [
        'a role other than reader or writer',
        declaredClaim({ pre_merge_readers_writers: [{ path: 'a.ts', role: 'owner' }] }),
        'db_claim_invalid',
        ['pre_merge_readers_writers[0].role'],
      ],
      [
        'a malformed affected surface',
        declaredClaim({ affected_surfaces: [{ table: 'items', columns: 'deploy_stage' }] }),
        'db_claim_invalid',
        ['affected_surfaces[0].columns'],
      ],
      [
        'a wrongly typed field',
        declaredClaim({ model_name: 7, schema_kinds: 'additive' }),
        'db_claim_invalid',
        ['model_name', 'schema_kinds'],
      ],
      ['an unknown state', { state: 'maybe' }, 'db_claim_invalid', ['state']],
      ['a payload that is not an object', [declaredClaim()], 'db_claim_invalid', ['$']],
      ['an unknown key', declaredClaim({ colour: 'blue' }), 'db_claim_unknown_key', ['colour']],
      [
        'a workflow-managed frozen_at',
        declaredClaim({ frozen_at: '2025-01-01T00:00:00Z' }),
        'db_claim_unknown_key',
        ['frozen_at'],
      ],
      [
        'reserved reviewed_negative',
        { state: 'none', reviewed_negative: true },
        'db_claim_reserved_key',
        ['reviewed_negative'],
      ],
      [
        'reserved validated_at',
        declaredClaim({ validated_at: '2025-01-01T00:00:00Z' }),
        'db_claim_reserved_key',
        ['validated_at'],
      ],
      [
        'a reserved key among other errors',
        { state: 'none', reviewed_negative: true, colour: 'blue', model_name: '' },
        'db_claim_reserved_key',
        ['reviewed_negative', 'colour', 'model_name'],
      ],
    ])('should refuse %s with its code and list every field', async (_label, payload, code, fields) => {
      const res = await http('POST', `/v1/items/${ref}/db-claim`, payload);
      expect(res.status).toBe(400);
      const body = (await res.json()) as ErrorBody;
      expect(body.code).toBe(code);
      expect(body.fields!.map((f) => f.field)).toEqual(fields);

      const cli = await amend(ref, payload);
      expect(cli.code).toBe(1);
      expect(stderrBody(cli)).toEqual(body);
    });

    it('should print the code, the message and every field without --json', async () => {
      const result = await runSvc(
        ['db-claim-amend', '--item', ref, '--file', claimFile({ state: 'none', validated_at: 'x', colour: 'blue' })],
        { env },
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^error: db_claim_reserved_key: the DB claim was refused \(2 problems\)/);
      expect(result.stderr).toMatch(/^ {2}- validated_at: .*\(db_claim_reserved_key\)$/m);
      expect(result.stderr).toMatch(/^ {2}- colour: .*\(db_claim_unknown_key\)$/m);
      expect(result.stdout).toBe('');
    });

    it.each([
      ['no reason', [], {}, 'db_claim_invalid'],
      ['a blank reason', ['--reason', '   '], { reason: '   ' }, 'db_claim_invalid'],
    ])('should refuse the negative shortcut with %s', async (_label, args, body, code) => {
      const cli = await runSvc(['db-claim-amend', '--item', ref, '--state', 'none', ...args, '--json'], { env });
      expect(cli.code).toBe(1);
      expect(stderrBody(cli)).toMatchObject({ code, fields: [{ field: 'reason', code }] });
      const res = await http('POST', `/v1/items/${ref}/db-claim/negative`, body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as ErrorBody).code).toBe(code);
    });

    it('should refuse reserved and unknown keys in the shortcut body', async () => {
      const res = await http('POST', `/v1/items/${ref}/db-claim/negative`, {
        reason: 'x',
        reviewed_negative: true,
        model_name: 'x',
      });
      expect(res.status).toBe(400);
      const body = (await res.json()) as ErrorBody;
      expect(body.code).toBe('db_claim_reserved_key');
      expect(body.fields!.map((f) => [f.field, f.code])).toEqual([
        ['reviewed_negative', 'db_claim_reserved_key'],
        ['model_name', 'db_claim_unknown_key'],
      ]);
    });

    it('should refuse invalid JSON in the file before any request', async () => {
      const result = await runSvc(['db-claim-amend', '--item', ref, '--file', claimFile('{"state": "declared",')], {
        env,
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^error: invalid_json: .* is not valid JSON/);
    });

    it('should refuse invalid JSON on stdin before any request', async () => {
      const result = await runSvc(['db-claim-amend', '--item', ref, '--stdin'], { env, input: 'state: declared' });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^error: invalid_json: standard input is not valid JSON/);
    });

    it.each([
      ['no source', []],
      ['two sources', ['--stdin', '--state', 'none', '--reason', 'x']],
      ['--state declared', ['--state', 'declared', '--reason', 'x']],
    ])('should refuse %s as invalid_arguments', async (_label, args) => {
      const result = await runSvc(['db-claim-amend', '--item', ref, ...args], { env, input: '{}' });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^error: invalid_arguments: /);
    });

    it('should refuse a session id that is not a positive integer', async () => {
      const cli = await runSvc(
        ['db-claim-amend', '--item', ref, '--state', 'none', '--reason', 'x', '--session', 'abc'],
        { env },
      );
      // a bad option value is a usage error (svc help exit-codes)
      expect(cli.code).toBe(64);
      expect(cli.stderr).toContain('positive integer');
      const res = await http('POST', `/v1/items/${ref}/db-claim/negative?session_id=abc`, { reason: 'x' });
      expect(res.status).toBe(400);
      expect(((await res.json()) as ErrorBody).code).toBe('validation_failed');
    });

    it('should refuse an unknown item as item_not_found', async () => {
      const cli = await amend(`${PREFIX}-9999`, declaredClaim());
      expect(cli.code).toBe(1);
      expect(stderrBody(cli)).toMatchObject({ code: 'item_not_found' });
      const res = await http('POST', `/v1/items/${PREFIX}-9999/db-claim`, declaredClaim());
      expect(res.status).toBe(404);
      expect((await http('GET', `/v1/items/${PREFIX}-9999/db-claim`)).status).toBe(404);
    });

    it('should refuse an item of a project the caller cannot see as item_not_found', async () => {
      const { rows } = await sql.query<{ id: number }>(
        `INSERT INTO organizations (slug, name) VALUES ('other', 'other') RETURNING id`,
      );
      await sql.query(`UPDATE projects SET organization_id = $1 WHERE id = $2`, [rows[0].id, PROJECT]);
      const token = 'svc_dbclaims_outsider_token';
      const { rows: actors } = await sql.query<{ id: number }>(
        `INSERT INTO actors (name) VALUES ('outsider') RETURNING id`,
      );
      await sql.query(
        `INSERT INTO api_tokens (actor_id, name, token_hash, token_prefix) VALUES ($1, 't', sha256($2::bytea), 'svc_')`,
        [actors[0].id, token],
      );
      try {
        const res = await http('POST', `/v1/items/${ref}/db-claim/negative`, { reason: 'x' }, token);
        expect(res.status).toBe(404);
        expect(((await res.json()) as ErrorBody).code).toBe('item_not_found');
        expect((await http('GET', `/v1/items/${ref}/db-claim`, undefined, token)).status).toBe(404);
      } finally {
        await sql.query(`UPDATE projects SET organization_id = NULL WHERE id = $1`, [PROJECT]);
      }
    });

    it('should refuse a request without a token', async () => {
      const res = await fetch(`${daemon.url}/v1/items/${ref}/db-claim`);
      expect(res.status).toBe(401);
    });
  });

  describe('reading the claim', () => {
    it('should read the bare default as not reviewed', async () => {
      const ref = await createItem();
      const res = await http('GET', `/v1/items/${ref}/db-claim`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        item_id: ref,
        reviewed: false,
        reviewed_reason: 'bare_default',
        malformed: false,
        claim: { state: 'none' },
        db_mutation_profile: '{"state":"none"}',
        db_compatibility_attestation: '{}',
      });
    });

    it.each([
      ['malformed profile JSON', '{"state":"none","reviewed_negative":tr', '{}', 'malformed_profile', true],
      [
        'reviewed_negative other than true',
        '{"state":"none","reviewed_negative":"true"}',
        '{}',
        'reviewed_negative_not_true',
        false,
      ],
      ['a declared state', '{"state":"declared","reviewed_negative":true}', '{}', 'declared', false],
    ])('should read %s as not reviewed', async (_label, profile, attestation, reason, malformed) => {
      const ref = await createItem();
      await setColumns(ref, profile, attestation);
      const view = (await (await http('GET', `/v1/items/${ref}/db-claim`)).json()) as ClaimView;
      expect(view).toMatchObject({ reviewed: false, reviewed_reason: reason, malformed, db_mutation_profile: profile });
    });

    it('should show the merged claim through svc items get <ref> db-claim', async () => {
      const ref = await createItem();
      await runSvc(['db-claim-amend', '--item', ref, '--state', 'none', '--reason', 'docs only'], { env });
      const result = await runSvc(['items', 'get', ref, 'db-claim', '--json'], { env });
      expectOk(result);
      expect(parseJson<ClaimView>(result)).toMatchObject({
        item_id: ref,
        reviewed: true,
        reviewed_reason: 'reviewed_negative',
        claim: { state: 'none', reviewed_negative: true, reason: 'docs only' },
      });
    });

    it('should accept a state none row with a frozen_at as inert', async () => {
      const ref = await createItem();
      await setColumns(ref, '{"state":"none","reviewed_negative":true}', '{"frozen_at":"2025-01-01T00:00:00.000Z"}');
      const view = (await (await http('GET', `/v1/items/${ref}/db-claim`)).json()) as ClaimView;
      expect(view).toMatchObject({ reviewed: true, malformed: false });
    });

    it('should replace a malformed profile on amendment', async () => {
      const ref = await createItem();
      await setColumns(ref, 'not json', 'not json either');
      const result = await runSvc(['db-claim-amend', '--item', ref, '--state', 'none', '--reason', 'x', '--json'], {
        env,
      });
      expectOk(result);
      expect(parseJson<ClaimView>(result)).toMatchObject({ reviewed: true, malformed: false });
    });
  });

  describe('the prose-mismatch gate', () => {
    interface GateRefusal extends ErrorBody {
      recovery: string;
      trigger: { field: string; excerpt: string; rule: string };
    }

    const DB_SPEC = 'Store where a deploy is. Add a nullable deploy_stage column to items.';

    function moveTo(ref: string, status: string): Promise<Response> {
      return http('POST', `/v1/items/${ref}/status`, { status });
    }

    async function statusOf(ref: string): Promise<string> {
      const { rows } = await sql.query<{ status: string }>(
        `SELECT status FROM items WHERE project = $1 AND project_sequence = $2`,
        [PROJECT, Number(ref.split('-')[1])],
      );
      return rows[0].status;
    }

    it('should refuse a refine advance while the spec declares DB work and the claim is the bare default', async () => {
      const ref = await createItem({ spec: DB_SPEC, status: 'refining-idea' });
      const res = await moveTo(ref, 'refined-idea');
      expect(res.status).toBe(409);
      const body = (await res.json()) as GateRefusal;
      expect(body).toMatchObject({
        code: 'GATE_DB_CLAIM_PROSE_MISMATCH',
        recovery: 'run db-claim-amend',
        trigger: { field: 'spec', rule: 'add_column' },
      });
      expect(body.trigger.excerpt).toContain('Add a nullable deploy_stage column');
      expect(body.message).toContain('db-claim-amend');
      expect(await statusOf(ref)).toBe('refining-idea');
    });

    it('should refuse through svc items status and pass after svc db-claim-amend', async () => {
      const ref = await createItem({ spec: DB_SPEC, status: 'refining-idea' });
      const refused = await runSvc(['items', 'status', ref, 'refined-idea', '--json'], { env });
      expect(refused.code).toBe(1);
      expect(stderrBody(refused)).toMatchObject({
        code: 'GATE_DB_CLAIM_PROSE_MISMATCH',
        recovery: 'run db-claim-amend',
        trigger: { field: 'spec', rule: 'add_column', excerpt: expect.stringContaining('deploy_stage column') },
      });
      const plain = await runSvc(['items', 'status', ref, 'refined-idea'], { env });
      expect(plain.stderr).toMatch(/^error: GATE_DB_CLAIM_PROSE_MISMATCH: The spec declares governed DB work/);
      expect(await statusOf(ref)).toBe('refining-idea');

      expectOk(await amend(ref, declaredClaim()));
      expectOk(await runSvc(['items', 'status', ref, 'refined-idea', '--json'], { env }));
      expect(await statusOf(ref)).toBe('refined-idea');
    });

    it('should let the advance through after the negative shortcut', async () => {
      const ref = await createItem({ spec: DB_SPEC, status: 'refining-idea' });
      expect((await moveTo(ref, 'refined-idea')).status).toBe(409);
      const amended = await runSvc(
        ['db-claim-amend', '--item', ref, '--state', 'none', '--reason', 'the column already exists'],
        { env },
      );
      expect(amended.code).toBe(0);
      expect((await moveTo(ref, 'refined-idea')).status).toBe(200);
    });

    it('should refuse a polish gate on the body prose, and still allow cancelling', async () => {
      const ref = await createItem({ body: 'Rollout: run the data migration before the release.' });
      await sql.query(
        `UPDATE items SET status = 'polishing-implementation' WHERE project = $1 AND project_sequence = $2`,
        [PROJECT, Number(ref.split('-')[1])],
      );
      const res = await moveTo(ref, 'implemented');
      expect(res.status).toBe(409);
      expect(((await res.json()) as GateRefusal).trigger).toMatchObject({ field: 'body', rule: 'data_migration' });
      expect(await statusOf(ref)).toBe('polishing-implementation');
      expect((await moveTo(ref, 'cancelled')).status).toBe(200);
    });

    it('should treat reviewed_negative other than true as the bare default', async () => {
      const ref = await createItem({ spec: DB_SPEC, status: 'refining-idea' });
      await setColumns(ref, '{"state":"none","reviewed_negative":"true"}', '{}');
      expect((await moveTo(ref, 'refined-idea')).status).toBe(409);
    });

    it('should not gate text without DB work, nor transitions the workflow does not watch', async () => {
      const plain = await createItem({ spec: 'Reword the help text. No migration needed.', status: 'refining-idea' });
      expect((await moveTo(plain, 'refined-idea')).status).toBe(200);
      const db = await createItem({ spec: DB_SPEC });
      expect((await moveTo(db, 'refining-idea')).status).toBe(200);
    });
  });

  describe('the DbClaimAmended event', () => {
    it('should record the previous and new summaries, the actor, the session and the reason', async () => {
      const ref = await createItem();
      await runSvc(['db-claim-amend', '--item', ref, '--state', 'none', '--reason', 'no DB work', '--session', '42'], {
        env,
      });
      const result = await amend(ref, declaredClaim(), ['--reason', 'adds deploy_stage', '--session', '42']);
      expectOk(result);
      const frozenAt = parseJson<ClaimView>(result).claim.frozen_at;
      const recorded = await events(ref);
      expect(recorded).toHaveLength(2);
      expect(recorded[1]).toEqual({
        session_id: 42,
        payload: {
          item_id: ref,
          previous: {
            state: 'none',
            mutation_intent: null,
            compatibility_class: null,
            reviewed: true,
            frozen_at: null,
            malformed: false,
          },
          new: {
            state: 'declared',
            mutation_intent: 'apply',
            compatibility_class: 'pre_merge_safe',
            reviewed: false,
            frozen_at: frozenAt,
            malformed: false,
          },
          actor: { id: expect.any(Number), name: 'admin' },
          session: 42,
          reason: 'adds deploy_stage',
        },
      });
      expect(recorded[0].payload).toMatchObject({ reason: 'no DB work', new: { reviewed: true } });
    });

    it('should not record an event for a refused amendment', async () => {
      const ref = await createItem();
      await amend(ref, { state: 'none', validated_at: 'now' });
      expect(await events(ref)).toEqual([]);
    });

    it('should amend even when the event cannot be recorded', async () => {
      const ref = await createItem();
      await sql.query(`
        CREATE FUNCTION refuse_db_claim_events() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'events are down'; END $$;
        CREATE TRIGGER tr_refuse_db_claim_events BEFORE INSERT ON events
          FOR EACH ROW WHEN (NEW.name = 'DbClaimAmended') EXECUTE FUNCTION refuse_db_claim_events();`);
      try {
        const result = await runSvc(['db-claim-amend', '--item', ref, '--state', 'none', '--reason', 'x', '--json'], {
          env,
        });
        expectOk(result);
        expect(parseJson<ClaimView>(result).reviewed).toBe(true);
        expect(JSON.parse((await stored(ref)).db_mutation_profile)).toMatchObject({ reviewed_negative: true });
        expect(await events(ref)).toEqual([]);
      } finally {
        await sql.query(`DROP TRIGGER tr_refuse_db_claim_events ON events; DROP FUNCTION refuse_db_claim_events();`);
      }
    });
  });
});
