import { Logger } from '@nestjs/common';

import { BARE_DEFAULT_PROFILE_TEXT, EMPTY_ATTESTATION_TEXT } from '@app/core';

import { AuthenticatedActor } from '../auth/actor';
import { testActor } from '../auth/test-actor';
import { refusal } from '../common/test-refusal';
import { RulebookService } from '../rulebook/rulebook.service';
import { EventsService } from '../events/events.service';
import { ProjectAccessService } from '../projects/project-access.service';
import { itemNotFound } from '../refs/refs.service';
import { ClaimReplacement, DbClaimsRepository, LockedClaim, StoredClaimTexts } from './db-claims.repository';
import { DB_CLAIM_AMENDED_EVENT, DbClaimsService } from './db-claims.service';

const NOW = '2025-03-01T12:00:00.000Z';
const ITEM = { id: 7, ref: 'DBC-1', project: 'dbc' };
const ACTOR = testActor();

const declared = {
  state: 'declared',
  model_name: 'BacklogItem',
  mutation_intent: 'apply',
  migration_strategy: 'additive_only',
  compatibility_class: 'pre_merge_safe',
  affected_surfaces: [{ table: 'items', columns: ['deploy_stage'] }],
  pre_merge_readers_writers: [{ path: 'apps/daemon/src/x.repository.ts', role: 'reader' }],
  invariants: ['old readers ignore deploy_stage'],
  rehearsal_commands: ['npm run typeorm migration:run'],
  residual_risk_notes: 'none known',
};

// An in-memory row behind the repository: replaceClaim runs `build` against it like the real transaction does.
function makeSut(stored: StoredClaimTexts = { profileText: BARE_DEFAULT_PROFILE_TEXT, attestationText: '{}' }) {
  const row = { ...stored };
  const repository = {
    findClaim: jest.fn(async () => ({ ...row })),
    replaceClaim: jest.fn(
      async (
        _id: number,
        build: (locked: LockedClaim) => { profileText: string; attestationText: string },
        check: (manager: unknown) => Promise<void>,
      ) => {
        await check({});
        const previous = { ...row };
        const next = build({ ...previous, now: NOW });
        row.profileText = next.profileText;
        row.attestationText = next.attestationText;
        return { previous, current: { ...row } } satisfies ClaimReplacement;
      },
    ),
  };
  const access = { resolveItem: jest.fn(async (_actor: AuthenticatedActor, _ref: string) => ITEM) };
  const events = {
    recordBestEffort: jest.fn(async (_event: Parameters<EventsService['recordBestEffort']>[0]) => undefined),
  };
  const rulebook = { checkClaim: jest.fn(async () => undefined) };
  const sut = new DbClaimsService(
    repository as unknown as DbClaimsRepository,
    access as unknown as ProjectAccessService,
    events as unknown as EventsService,
    rulebook as unknown as RulebookService,
  );
  return { sut, row, repository, access, events, rulebook };
}

describe(DbClaimsService.name, () => {
  describe('amend', () => {
    it('should split a declared claim into both halves with frozen_at from the database clock', async () => {
      const { sut, row } = makeSut();
      const response = await sut.amend(ACTOR, 'DBC-1', declared, {});
      expect(JSON.parse(row.profileText!)).toEqual({
        state: 'declared',
        model_name: 'BacklogItem',
        mutation_intent: 'apply',
        migration_strategy: 'additive_only',
        affected_surfaces: [{ table: 'items', columns: ['deploy_stage'] }],
      });
      expect(JSON.parse(row.attestationText!)).toMatchObject({ compatibility_class: 'pre_merge_safe', frozen_at: NOW });
      expect(response).toMatchObject({
        item_id: 'DBC-1',
        reviewed: false,
        reviewed_reason: 'declared',
        malformed: false,
        claim: { state: 'declared', frozen_at: NOW, invariants: ['old readers ignore deploy_stage'] },
        db_mutation_profile: row.profileText,
        db_compatibility_attestation: row.attestationText,
      });
    });

    it.each([
      ['db_claim_invalid', { state: 'declared', mutation_intent: 'apply' }],
      ['db_claim_unknown_key', { state: 'none', colour: 'blue', model_name: 3 }],
      ['db_claim_reserved_key', { state: 'none', reviewed_negative: true, colour: 'blue' }],
    ])('should refuse with %s and write nothing', async (code, body) => {
      const { sut, repository, events, access } = makeSut();
      const err = await refusal(sut.amend(ACTOR, 'DBC-1', body, {}));
      expect(err).toMatchObject({ code, status: 400 });
      expect(err.extra.fields).toEqual(
        expect.arrayContaining([expect.objectContaining({ field: expect.any(String) })]),
      );
      expect(repository.replaceClaim).not.toHaveBeenCalled();
      expect(access.resolveItem).not.toHaveBeenCalled();
      expect(events.recordBestEffort).not.toHaveBeenCalled();
    });

    it('should list every error when a reserved key and other errors come together', async () => {
      const { sut } = makeSut();
      const err = await refusal(sut.amend(ACTOR, 'DBC-1', { state: 'x', validated_at: NOW, extra: 1 }, {}));
      expect(err.code).toBe('db_claim_reserved_key');
      expect((err.extra.fields as { field: string; code: string }[]).map((f) => [f.field, f.code])).toEqual([
        ['validated_at', 'db_claim_reserved_key'],
        ['extra', 'db_claim_unknown_key'],
        ['state', 'db_claim_invalid'],
      ]);
    });

    it('should refuse an item the caller cannot see and write nothing', async () => {
      const { sut, access, repository } = makeSut();
      access.resolveItem.mockRejectedValue(itemNotFound('DBC-1'));
      const err = await refusal(sut.amend(ACTOR, 'DBC-1', declared, {}));
      expect(err).toMatchObject({ code: 'item_not_found', status: 404 });
      expect(repository.replaceClaim).not.toHaveBeenCalled();
    });

    it('should refuse as not found when the row vanished before the lock', async () => {
      const { sut, repository } = makeSut();
      repository.replaceClaim.mockResolvedValue(null as unknown as ClaimReplacement);
      expect(await refusal(sut.amend(ACTOR, 'DBC-1', declared, {}))).toMatchObject({ code: 'item_not_found' });
    });

    it('should replace a reviewed-negative claim and drop the attestation of review', async () => {
      const { sut, row } = makeSut();
      await sut.amendNegative(ACTOR, 'DBC-1', { reason: 'docs only' }, {});
      const response = await sut.amend(ACTOR, 'DBC-1', declared, {});
      expect(JSON.parse(row.profileText!)).not.toHaveProperty('reviewed_negative');
      expect(response.claim).toMatchObject({ reviewed_negative: null, validated_at: null, reason: null });
      expect(response.reviewed).toBe(false);
    });

    it('should carry rehearsal_outcomes and class_escalations over', async () => {
      const { sut } = makeSut({
        profileText: '{"state":"declared"}',
        attestationText: JSON.stringify({ frozen_at: '2025-01-01T00:00:00.000Z', rehearsal_outcomes: [{ ok: true }] }),
      });
      const response = await sut.amend(ACTOR, 'DBC-1', declared, {});
      expect(response.claim).toMatchObject({ frozen_at: NOW, rehearsal_outcomes: [{ ok: true }] });
    });

    it('should not stamp frozen_at for a plain state none claim', async () => {
      const { sut, row } = makeSut({
        profileText: '{"state":"declared"}',
        attestationText: JSON.stringify({ frozen_at: '2025-01-01T00:00:00.000Z' }),
      });
      const response = await sut.amend(ACTOR, 'DBC-1', { state: 'none' }, {});
      expect(row.attestationText).toBe(EMPTY_ATTESTATION_TEXT);
      expect(response).toMatchObject({ reviewed: false, reviewed_reason: 'bare_default', claim: { frozen_at: null } });
    });
  });

  describe('amendNegative', () => {
    it('should store state none with reviewed_negative, validated_at and the reason on the profile', async () => {
      const { sut, row } = makeSut();
      const response = await sut.amendNegative(ACTOR, 'DBC-1', { reason: 'docs only' }, { session_id: 4 });
      expect(JSON.parse(row.profileText!)).toEqual({
        state: 'none',
        reviewed_negative: true,
        validated_at: NOW,
        reason: 'docs only',
      });
      expect(response).toMatchObject({ reviewed: true, reviewed_reason: 'reviewed_negative' });
    });

    it('should accept an explicit state none', async () => {
      const { sut } = makeSut();
      expect((await sut.amendNegative(ACTOR, 'DBC-1', { state: 'none', reason: 'x' }, {})).reviewed).toBe(true);
    });

    it.each([
      ['db_claim_invalid', {}, ['reason']],
      ['db_claim_invalid', { reason: '  ' }, ['reason']],
      ['db_claim_invalid', { state: 'declared', reason: 'x' }, ['state']],
      ['db_claim_invalid', 'docs only', ['$']],
      ['db_claim_unknown_key', { reason: 'x', colour: 'blue' }, ['colour']],
      ['db_claim_reserved_key', { reason: 'x', reviewed_negative: true }, ['reviewed_negative']],
    ])('should refuse with %s (%p) and write nothing', async (code, body, fields) => {
      const { sut, repository } = makeSut();
      const err = await refusal(sut.amendNegative(ACTOR, 'DBC-1', body, {}));
      expect(err).toMatchObject({ code, status: 400 });
      expect((err.extra.fields as { field: string }[]).map((f) => f.field)).toEqual(fields);
      expect(repository.replaceClaim).not.toHaveBeenCalled();
    });
  });

  describe('the DbClaimAmended event', () => {
    it('should carry the previous and new summaries, actor, session and reason', async () => {
      const { sut, events } = makeSut();
      await sut.amend(ACTOR, 'DBC-1', declared, { session_id: 9, reason: 'adds deploy_stage' });
      expect(events.recordBestEffort).toHaveBeenCalledWith({
        name: DB_CLAIM_AMENDED_EVENT,
        kind: 'telemetry',
        project: 'dbc',
        itemRef: 'DBC-1',
        actorId: 3,
        sessionId: 9,
        payload: {
          item_id: 'DBC-1',
          previous: {
            state: 'none',
            mutation_intent: null,
            compatibility_class: null,
            reviewed: false,
            frozen_at: null,
            malformed: false,
          },
          new: {
            state: 'declared',
            mutation_intent: 'apply',
            compatibility_class: 'pre_merge_safe',
            reviewed: false,
            frozen_at: NOW,
            malformed: false,
          },
          actor: { id: 3, name: 'alice' },
          session: 9,
          reason: 'adds deploy_stage',
        },
      });
    });

    it('should use the shortcut reason and a null session when none is given', async () => {
      const { sut, events } = makeSut();
      await sut.amendNegative(ACTOR, 'DBC-1', { reason: 'docs only' }, {});
      expect(events.recordBestEffort.mock.calls[0][0]).toMatchObject({
        sessionId: null,
        payload: { session: null, reason: 'docs only', new: { state: 'none', reviewed: true } },
      });
    });

    it('should still return the stored claim when recording the event fails', async () => {
      const { sut, events, row } = makeSut();
      const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      events.recordBestEffort.mockRejectedValue(new Error('events table is gone'));
      const response = await sut.amendNegative(ACTOR, 'DBC-1', { reason: 'docs only' }, {});
      expect(response.reviewed).toBe(true);
      expect(JSON.parse(row.profileText!)).toMatchObject({ reviewed_negative: true });
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('events table is gone'));
      warn.mockRestore();
    });

    it('should not record an event for a refused amendment', async () => {
      const { sut, events } = makeSut();
      await refusal(sut.amend(ACTOR, 'DBC-1', { state: 'none', validated_at: NOW }, {}));
      expect(events.recordBestEffort).not.toHaveBeenCalled();
    });
  });

  describe('get', () => {
    it('should read the bare default as not reviewed', async () => {
      const { sut } = makeSut();
      expect(await sut.get(ACTOR, 'DBC-1')).toMatchObject({
        item_id: 'DBC-1',
        reviewed: false,
        reviewed_reason: 'bare_default',
        malformed: false,
        db_mutation_profile: BARE_DEFAULT_PROFILE_TEXT,
      });
    });

    it('should read malformed profile JSON as not reviewed and return the raw text', async () => {
      const { sut } = makeSut({ profileText: '{"state":"none","reviewed_negative":tru', attestationText: '{}' });
      expect(await sut.get(ACTOR, 'DBC-1')).toMatchObject({
        reviewed: false,
        reviewed_reason: 'malformed_profile',
        malformed: true,
        malformed_halves: ['db_mutation_profile'],
        db_mutation_profile: '{"state":"none","reviewed_negative":tru',
      });
    });

    it('should read a state none row with a frozen_at as inert and reviewed', async () => {
      const { sut } = makeSut({
        profileText: '{"state":"none","reviewed_negative":true}',
        attestationText: '{"frozen_at":"2025-01-01T00:00:00.000Z"}',
      });
      expect(await sut.get(ACTOR, 'DBC-1')).toMatchObject({ reviewed: true, malformed: false });
    });

    it('should hide an item of another project', async () => {
      const { sut, access } = makeSut();
      access.resolveItem.mockRejectedValue(itemNotFound('DBC-1'));
      expect(await refusal(sut.get(ACTOR, 'DBC-1'))).toMatchObject({ code: 'item_not_found', status: 404 });
    });
  });
});
