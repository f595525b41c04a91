import type { EntityManager } from 'typeorm';

import type { ClaimHolder } from '@app/core';

import { testActor } from '../auth/test-actor';
import { DomainError } from '../common/domain-error';
import { anonymousWriter, runInWrite, WriteContext } from '../database/write-context';
import { RulebookRepository } from './rulebook.repository';
import { RulebookService } from './rulebook.service';

const MANAGER = {} as EntityManager;
const ITEM = { id: 7, ref: 'ATL-7', project: 'atlas' };
const HOLDER: ClaimHolder = {
  sessionId: 40,
  actorId: 2,
  actor: 'agent-bob',
  harness: 'claude-code',
  expiresAt: new Date('2026-01-10T12:30:00.000Z'),
};

const actor = (id: number, isAdmin = false) => testActor({ id, name: `actor-${id}`, isAdmin, credentialId: id });

function makeSut(holder: ClaimHolder | null, organizationAdmin = false) {
  const repository = {
    holder: jest.fn(async () => holder),
    isOrganizationAdmin: jest.fn(async () => organizationAdmin),
    nameWriter: jest.fn(async () => undefined),
    releaseClaim: jest.fn(async () => undefined),
  };
  const sut = new RulebookService(repository as unknown as RulebookRepository);
  return { sut, repository };
}

// A write from this executor session (null: a person at the command line), as the write context carries it.
function writeFrom(sessionId: number | null, actorId: number): WriteContext {
  return {
    writer: { ...anonymousWriter('http'), actor_id: actorId, session_id: sessionId },
    mutation: true,
    passed: new Set(),
  };
}

async function refusal(work: Promise<unknown>): Promise<DomainError> {
  const err: unknown = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}

describe('RulebookService.checkClaim', () => {
  it('should pass a write on an unclaimed item and note the claim rule as checked', async () => {
    const { sut, repository } = makeSut(null);
    const context = writeFrom(null, 3);
    await runInWrite(context, () => sut.checkClaim(MANAGER, actor(3), ITEM, 'status'));
    expect(context.passed.has('claim')).toBe(true);
    expect(repository.releaseClaim).not.toHaveBeenCalled();
  });

  it('should pass the holder session’s own work', async () => {
    const { sut, repository } = makeSut(HOLDER);
    await runInWrite(writeFrom(40, 2), () => sut.checkClaim(MANAGER, actor(2), ITEM, 'edit'));
    expect(repository.releaseClaim).not.toHaveBeenCalled();
  });

  it('should refuse another session’s work on a claimed item with 409 item_claimed_elsewhere, naming the holder', async () => {
    const { sut, repository } = makeSut(HOLDER);
    const err = await refusal(runInWrite(writeFrom(41, 3), () => sut.checkClaim(MANAGER, actor(3), ITEM, 'status')));
    expect(err).toMatchObject({ code: 'item_claimed_elsewhere', status: 409 });
    expect(err.extra).toMatchObject({
      item_id: 'ATL-7',
      holder: { actor: 'agent-bob', session_id: 40, harness: 'claude-code', expires_at: '2026-01-10T12:30:00.000Z' },
    });
    expect(repository.releaseClaim).not.toHaveBeenCalled();
  });

  it('should decide on the claim the item’s lock already read, without reading it again', async () => {
    const { sut, repository } = makeSut(null);
    const locked = {
      claim_holder: {
        session_id: 40,
        actor_id: 2,
        actor: 'agent-bob',
        harness: 'claude-code',
        expires_at: '2026-01-10T12:30:00+00:00',
      },
    };
    const err = await refusal(
      runInWrite(writeFrom(41, 3), () => sut.checkClaim(MANAGER, actor(3), ITEM, 'status', false, locked)),
    );
    expect(err).toMatchObject({ code: 'item_claimed_elsewhere', status: 409 });
    expect(err.extra).toMatchObject({
      holder: { actor: 'agent-bob', session_id: 40, harness: 'claude-code', expires_at: '2026-01-10T12:30:00.000Z' },
    });
    expect(repository.holder).not.toHaveBeenCalled();
    await runInWrite(writeFrom(40, 2), () => sut.checkClaim(MANAGER, actor(2), ITEM, 'status', false, locked));
    await runInWrite(writeFrom(41, 3), () =>
      sut.checkClaim(MANAGER, actor(3), ITEM, 'status', false, { claim_holder: null }),
    );
    expect(repository.holder).not.toHaveBeenCalled();
  });

  it('should let triage through on a claimed item', async () => {
    const { sut, repository } = makeSut(HOLDER);
    await runInWrite(writeFrom(41, 3), () => sut.checkClaim(MANAGER, actor(3), ITEM, 'triage'));
    expect(repository.releaseClaim).not.toHaveBeenCalled();
  });

  it('should refuse force from someone who is no admin of the project’s organization with 403 force_not_allowed', async () => {
    const { sut, repository } = makeSut(HOLDER, false);
    const err = await refusal(
      runInWrite(writeFrom(null, 3), () => sut.checkClaim(MANAGER, actor(3), ITEM, 'status', true)),
    );
    expect(err).toMatchObject({ code: 'force_not_allowed', status: 403, extra: { item_id: 'ATL-7' } });
    expect(repository.isOrganizationAdmin).toHaveBeenCalledWith(MANAGER, 3, 'atlas');
    expect(repository.releaseClaim).not.toHaveBeenCalled();
  });

  it('should let an organization admin force the write: the claim is released and the writer recorded as forced', async () => {
    const { sut, repository } = makeSut(HOLDER, true);
    const context = writeFrom(null, 3);
    await runInWrite(context, () => sut.checkClaim(MANAGER, actor(3), ITEM, 'status', true));
    expect(repository.nameWriter).toHaveBeenCalledWith(MANAGER, expect.objectContaining({ actor_id: 3, forced: true }));
    expect(repository.releaseClaim).toHaveBeenCalledWith(MANAGER, 7);
  });

  it('should not ask about organization admins when nothing is claimed, even with force', async () => {
    const { sut, repository } = makeSut(null);
    await runInWrite(writeFrom(null, 3), () => sut.checkClaim(MANAGER, actor(3), ITEM, 'status', true));
    expect(repository.isOrganizationAdmin).not.toHaveBeenCalled();
    expect(repository.releaseClaim).not.toHaveBeenCalled();
  });
});
