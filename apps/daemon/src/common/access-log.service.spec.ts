import type { HttpAdapterHost } from '@nestjs/core';

import { AccessLogService, refusalCode } from './access-log.service';
import { ACCESS, AccessNotes } from './logging';
import { REQUEST_ID_HEADER } from './request-id';

type Hook = (...args: unknown[]) => void;

function makeSut() {
  const hooks: Record<string, Hook> = {};
  const fastify = { addHook: jest.fn((name: string, hook: Hook) => (hooks[name] = hook)) };
  const adapterHost = { httpAdapter: { getInstance: () => fastify } } as unknown as HttpAdapterHost;
  const sut = new AccessLogService(adapterHost);
  sut.onModuleInit();
  return { hooks };
}

function request(route: string | undefined) {
  return { id: 'req-1', routeOptions: { url: route }, raw: {} as { [ACCESS]?: AccessNotes } } as {
    id: string;
    routeOptions: { url: string | undefined };
    raw: { [ACCESS]?: AccessNotes };
    actor?: { id: number };
  };
}

function reply(statusCode = 200) {
  return { statusCode, header: jest.fn() };
}

describe(AccessLogService.name, () => {
  describe(refusalCode.name, () => {
    it('should read the code of a refusal body', () => {
      expect(refusalCode('{"code":"project_not_found","message":"x"}')).toBe('project_not_found');
      expect(refusalCode(Buffer.from('{"code":"forbidden"}'))).toBe('forbidden');
    });

    it.each([
      ['a code that is no snake_case word', '{"code":"Drop Table"}'],
      ['a code that is no string', '{"code":42}'],
      ['a body that is no JSON', 'not json'],
      ['a body past 4096 characters', JSON.stringify({ code: 'too_long', pad: 'x'.repeat(5000) })],
      ['a body that is a stream', { pipe: () => undefined }],
    ])('should give no code for %s', (_what, payload) => {
      expect(refusalCode(payload)).toBeNull();
    });
  });

  describe('onModuleInit', () => {
    it('should answer with the request id', () => {
      const { hooks } = makeSut();
      const r = reply();
      hooks.onRequest(request('/v1/items'), r, () => undefined);
      expect(r.header).toHaveBeenCalledWith(REQUEST_ID_HEADER, 'req-1');
    });

    it('should note the route pattern, or none when no route matched', () => {
      const { hooks } = makeSut();
      const matched = request('/v1/items/:ref');
      const unmatched = request(undefined);
      hooks.onRequest(matched, reply(), () => undefined);
      hooks.onRequest(unmatched, reply(), () => undefined);
      expect(matched.raw[ACCESS]?.route).toBe('/v1/items/:ref');
      expect(unmatched.raw[ACCESS]?.route).toBeNull();
    });

    it('should read the actor when the line is written, after the guard found it', () => {
      const { hooks } = makeSut();
      const req = request('/v1/items');
      hooks.onRequest(req, reply(), () => undefined);
      req.actor = { id: 7 };
      expect(req.raw[ACCESS]?.actor).toEqual({ id: 7 });
    });

    it('should note the code of a refusal', () => {
      const { hooks } = makeSut();
      const req = request('/v1/items');
      hooks.onRequest(req, reply(), () => undefined);
      const done = jest.fn();
      hooks.onSend(req, reply(404), '{"code":"item_not_found"}', done);
      expect(req.raw[ACCESS]?.code).toBe('item_not_found');
      expect(done).toHaveBeenCalledWith(null, '{"code":"item_not_found"}');
    });

    it('should note no code on a success, even when its body has one', () => {
      const { hooks } = makeSut();
      const req = request('/v1/items');
      hooks.onRequest(req, reply(), () => undefined);
      hooks.onSend(req, reply(200), '{"code":"looks_like_one"}', () => undefined);
      expect(req.raw[ACCESS]?.code).toBeUndefined();
    });
  });
});
