import { EventEmitter } from 'node:events';

import type { FastifyReply, FastifyRequest } from 'fastify';
import { Subject } from 'rxjs';

import { AccessService } from '../auth/access.service';
import { testActor } from '../auth/test-actor';
import { DomainError } from '../common/domain-error';
import { AppConfig } from '../config/app-config';
import { EventsStreamQueryDto } from './dto/events.dto';
import { EventsStreamService, StreamMessage } from './events-stream.service';
import { EventsRepository, StreamStanding } from './events.repository';
import { EventsService } from './events.service';

const MEMBER = testActor({ id: 5, name: 'bob', credentialId: 11 });

const STANDING: StreamStanding = { ok: true, projects: ['shop'], machines: null };

function makeSut(standing: StreamStanding = STANDING, perActor = 1, perAddress = 5) {
  const repository = {
    standing: jest.fn(async () => standing),
    replayAfter: jest.fn(async () => ({ rows: [], after: null })),
    query: jest.fn(async () => []),
  };
  const stream = {
    messages: new Subject<StreamMessage>(),
    follow: jest.fn(() => () => undefined),
    onClose: jest.fn(() => () => undefined),
  };
  const config = {
    eventStreamsPerActor: perActor,
    eventStreamsPerAddress: perAddress,
    trustedProxies: [],
    mode: 'self-host',
  } as unknown as AppConfig;
  const sut = new EventsService(
    repository as unknown as EventsRepository,
    {} as AccessService,
    stream as unknown as EventsStreamService,
    config,
  );
  return { sut, repository };
}

// A stream request from `address`; `close()` is the client going away.
function connection(headers: Record<string, string> = {}, address = '203.0.113.7') {
  const raw = Object.assign(new EventEmitter(), { headers: {}, socket: { remoteAddress: address } });
  const request = { headers, raw } as unknown as FastifyRequest;
  const written: string[] = [];
  const reply = {
    hijack: jest.fn(),
    raw: { writeHead: jest.fn(), write: (chunk: string) => written.push(chunk), end: jest.fn() },
  };
  return { request, reply: reply as unknown as FastifyReply, hijacked: reply.hijack, close: () => raw.emit('close') };
}

async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}

describe(EventsService.name, () => {
  const open: (() => void)[] = [];
  afterEach(() => {
    for (const close of open.splice(0)) close();
  });

  async function openStream(sut: EventsService, dto: EventsStreamQueryDto = {}, c = connection()) {
    await sut.openStream(MEMBER, dto, c.request, c.reply);
    open.push(c.close);
    return c;
  }

  describe('openStream', () => {
    it.each([
      ['a Last-Event-ID header that is no event id', { 'last-event-id': 'abc' }, {}],
      ['a Last-Event-ID header past 18 digits', { 'last-event-id': '1'.repeat(19) }, {}],
      ['a last_event_id parameter that is no event id', {}, { last_event_id: '-1' }],
    ])('should refuse %s with invalid_request', async (_what, headers, dto) => {
      const { sut, repository } = makeSut();
      const c = connection(headers);
      const err = await refusal(sut.openStream(MEMBER, dto, c.request, c.reply));
      expect(err.code).toBe('invalid_request');
      expect(repository.standing).not.toHaveBeenCalled();
      expect(c.hijacked).not.toHaveBeenCalled();
    });

    it('should take the Last-Event-ID header over the parameter', async () => {
      const { sut, repository } = makeSut();
      await openStream(sut, { last_event_id: '3' }, connection({ 'last-event-id': ' 9 ' }));
      expect(repository.replayAfter).toHaveBeenCalledWith(expect.objectContaining({ afterId: '9' }));
    });

    it('should refuse an actor with no active membership with organization_membership_required', async () => {
      const { sut } = makeSut({ ok: false, code: 'membership_removed' });
      const c = connection();
      const err = await refusal(sut.openStream(MEMBER, {}, c.request, c.reply));
      expect(err.code).toBe('organization_membership_required');
      expect(err.status).toBe(403);
    });

    it('should refuse a credential revoked since the guard checked it as unauthenticated', async () => {
      const { sut } = makeSut({ ok: false, code: 'token_revoked' });
      const c = connection();
      expect((await refusal(sut.openStream(MEMBER, {}, c.request, c.reply))).status).toBe(401);
    });

    it('should refuse an expired credential without asking the database', async () => {
      const { sut, repository } = makeSut();
      const c = connection();
      const expired = { ...MEMBER, expiresAt: new Date(Date.now() - 1000) };
      expect((await refusal(sut.openStream(expired, {}, c.request, c.reply))).status).toBe(401);
      expect(repository.standing).not.toHaveBeenCalled();
    });

    it('should refuse a project the caller may not see as not found', async () => {
      const { sut } = makeSut();
      const c = connection();
      const err = await refusal(sut.openStream(MEMBER, { project: 'secret' }, c.request, c.reply));
      expect(err.code).toBe('project_not_found');
      expect(c.hijacked).not.toHaveBeenCalled();
    });

    it('should open a stream on a project the caller may see', async () => {
      const { sut } = makeSut();
      const c = await openStream(sut, { project: 'shop' });
      expect(c.hijacked).toHaveBeenCalled();
    });

    it('should refuse a stream past the per-actor cap with 429 and Retry-After', async () => {
      const { sut } = makeSut(STANDING, 1, 5);
      await openStream(sut);
      const c = connection({}, '198.51.100.1');
      const err = await refusal(sut.openStream(MEMBER, {}, c.request, c.reply));
      expect(err.code).toBe('event_stream_limit_reached');
      expect(err.status).toBe(429);
      expect(err.headers['retry-after']).toBe('30');
    });

    it('should refuse a stream past the per-address cap', async () => {
      const { sut } = makeSut(STANDING, 5, 1);
      await openStream(sut);
      const c = connection();
      const err = await refusal(sut.openStream({ ...MEMBER, id: 6 }, {}, c.request, c.reply));
      expect(err.code).toBe('event_stream_limit_reached');
    });

    it('should give the slot back when the client went away while its standing was checked', async () => {
      const { sut, repository } = makeSut(STANDING, 1, 5);
      const gone = connection();
      // the client aborts during the check: its request is destroyed and its 'close' already emitted
      repository.standing.mockImplementationOnce(async () => {
        Object.assign(gone.request.raw, { destroyed: true });
        gone.close();
        return STANDING;
      });
      await sut.openStream(MEMBER, {}, gone.request, gone.reply);
      await expect(openStream(sut)).resolves.toBeDefined();
    });

    it('should give the slot back when the client goes away', async () => {
      const { sut } = makeSut(STANDING, 1, 5);
      const first = await openStream(sut);
      first.close();
      await expect(openStream(sut)).resolves.toBeDefined();
    });
  });

  describe('query', () => {
    it('should refuse a since that is no timestamp', async () => {
      const { sut, repository } = makeSut();
      const err = await refusal(sut.query({ ...MEMBER, isAdmin: true }, { since: 'yesterday-ish' }));
      expect(err.code).toBe('invalid_request');
      expect(repository.query).not.toHaveBeenCalled();
    });
  });
});
