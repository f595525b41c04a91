import type { HttpAdapterHost } from '@nestjs/core';
import type { DataSource } from 'typeorm';

import { AuthenticatedActor } from '../auth/actor';
import { testActor } from '../auth/test-actor';
import { DomainError } from '../common/domain-error';
import { AppConfig } from '../config/app-config';
import { EventsStreamService } from '../events/events-stream.service';
import { FrontierObserver } from '../frontier/read-path/frontier-observer';
import { MachineAuthorizationService } from '../machine-authorization/machine-authorization.service';
import { SweepObserver } from '../sweeps/sweep-observer';
import { MetricsService } from './metrics.service';

type Hook = (...args: unknown[]) => void;

const ADMIN = testActor({ id: 1, name: 'root', isAdmin: true });

function makeSut() {
  const hooks: Record<string, Hook> = {};
  const fastify = { addHook: jest.fn((name: string, hook: Hook) => (hooks[name] = hook)) };
  const adapterHost = { httpAdapter: { getInstance: () => fastify } } as unknown as HttpAdapterHost;
  const observer = { subscribe: jest.fn(() => () => undefined) };
  const machineAuthorization = { poolUse: jest.fn(async () => ({ open: 1, capacity: 10 })) };
  const sut = new MetricsService(
    adapterHost,
    { driver: {} } as unknown as DataSource,
    { openStreams: 2 } as unknown as EventsStreamService,
    observer as unknown as FrontierObserver,
    observer as unknown as SweepObserver,
    { metricsPort: null } as unknown as AppConfig,
    machineAuthorization as unknown as MachineAuthorizationService,
  );
  sut.onModuleInit();
  return { sut, hooks, machineAuthorization };
}

// One request through the hooks: onSend with its body, then onResponse.
function answer(
  hooks: Record<string, Hook>,
  method: string,
  route: string | undefined,
  statusCode: number,
  body: string,
  contentType = 'application/json',
) {
  const request = { method, routeOptions: { url: route } };
  const reply = { statusCode, elapsedTime: 12, getHeader: () => contentType, raw: { getHeader: () => undefined } };
  hooks.onSend(request, reply, body, () => undefined);
  hooks.onResponse(request, reply, () => undefined);
}

describe(MetricsService.name, () => {
  describe('scrape', () => {
    it('should answer a server admin', async () => {
      await expect(makeSut().sut.scrape(ADMIN)).resolves.toContain('svc_event_streams_open 2');
    });

    it('should answer a metrics-only token of a member who is no admin', async () => {
      await expect(makeSut().sut.scrape({ ...ADMIN, isAdmin: false, scope: 'metrics' })).resolves.toContain(
        'svc_build_info',
      );
    });

    it.each<[string, Partial<AuthenticatedActor>]>([
      ['a member who is no admin', { isAdmin: false }],
      ['a server admin confined to one organization', { organizationId: 4 }],
    ])('should refuse %s with forbidden', (_who, change) => {
      const refusal = (() => {
        try {
          void makeSut().sut.scrape({ ...ADMIN, ...change });
        } catch (err) {
          return err;
        }
      })();
      expect(refusal).toBeInstanceOf(DomainError);
      expect((refusal as DomainError).code).toBe('forbidden');
    });

    it('should answer during a database outage without the device-code pool gauge', async () => {
      const { sut, machineAuthorization } = makeSut();
      machineAuthorization.poolUse.mockRejectedValue(new Error('connection refused'));
      await expect(sut.scrape(ADMIN)).resolves.toContain('svc_event_streams_open 2');
    });
  });

  describe('the request hooks', () => {
    it('should label a request by its route pattern, never its URL', async () => {
      const { sut, hooks } = makeSut();
      answer(hooks, 'GET', '/v1/items/:ref', 200, '{}');
      answer(hooks, 'GET', undefined, 404, '{"code":"not_found"}');
      const text = await sut.text();
      expect(text).toMatch(/svc_http_request_duration_seconds_count\{[^}]*route="\/v1\/items\/:ref"[^}]*\} 1/);
      expect(text).toMatch(/svc_http_request_duration_seconds_count\{[^}]*route="\(unmatched\)"[^}]*\} 1/);
    });

    it('should leave event streams out of the request durations', async () => {
      const { sut, hooks } = makeSut();
      answer(hooks, 'GET', '/v1/events/stream', 200, '', 'text/event-stream; charset=utf-8');
      expect(await sut.text()).not.toContain('route="/v1/events/stream"');
    });

    it('should count a device-code poll by its answer code, and a refusal as a refusal', async () => {
      const { sut, hooks } = makeSut();
      const poll = '/api/machine/authorizations/token';
      answer(hooks, 'POST', poll, 200, '{"access_token":"x"}');
      answer(hooks, 'POST', poll, 202, '{"code":"authorization_pending"}');
      answer(hooks, 'POST', poll, 400, '{"code":"slow_down"}');
      const text = await sut.text();
      expect(text).toContain('svc_device_code_requests_total{operation="poll",outcome="ok"} 1');
      expect(text).toContain('svc_device_code_requests_total{operation="poll",outcome="authorization_pending"} 1');
      expect(text).toContain('svc_device_code_refusals_total{operation="poll",code="slow_down"} 1');
      expect(text).not.toContain('code="authorization_pending"');
    });

    it('should label an answer code that is no snake_case word as other', async () => {
      const { sut, hooks } = makeSut();
      answer(hooks, 'POST', '/api/machine/authorizations', 500, '{"code":"Internal Error"}');
      expect(await sut.text()).toContain('svc_device_code_refusals_total{operation="start",code="other"} 1');
    });
  });
});
