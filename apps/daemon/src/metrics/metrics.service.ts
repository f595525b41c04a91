import { createServer, Server } from 'node:http';

import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';

import { version } from '../../../../package.json';
import { AuthenticatedActor, isServerAdmin } from '../auth/actor';
import { forbidden } from '../common/domain-error';
import { daemonNotes } from '../common/daemon-notes';
import { InjectDataSource } from '../common/inject-data-source';
import { InjectHttpAdapterHost } from '../common/inject-http-adapter-host';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { EventsStreamService } from '../events/events-stream.service';
import { FrontierObserver } from '../frontier/read-path/frontier-observer';
import { MachineAuthorizationService } from '../machine-authorization/machine-authorization.service';
import { SweepObserver } from '../sweeps/sweep-observer';
import { answerCode, deviceCodeOperation } from './device-code-routes';
import { codeLabel, DaemonMetrics } from './metrics.registry';

const UNMATCHED_ROUTE = '(unmatched)';

@Injectable()
export class MetricsService implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(MetricsService.name);
  private readonly metrics: DaemonMetrics;
  private readonly unsubscribe: (() => void)[] = [];
  private localServer: Server | null = null;

  constructor(
    @InjectHttpAdapterHost() private readonly adapterHost: HttpAdapterHost,
    @InjectDataSource() dataSource: DataSource,
    streams: EventsStreamService,
    private readonly frontier: FrontierObserver,
    private readonly sweeps: SweepObserver,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    machineAuthorization: MachineAuthorizationService,
  ) {
    this.metrics = new DaemonMetrics(
      {
        openStreams: () => streams.openStreams,
        pool: () => {
          const pool = (dataSource.driver as unknown as { master?: Pool }).master;
          if (!pool) return null;
          return {
            total: pool.totalCount,
            idle: pool.idleCount,
            waiting: pool.waitingCount,
            max: (pool.options as { max?: number }).max ?? 0,
          };
        },
        // a scrape during a database outage still answers, without this gauge's fresh value
        codePool: () => machineAuthorization.poolUse().catch(() => null),
      },
      version,
    );
  }

  get contentType(): string {
    return this.metrics.registry.contentType;
  }

  scrape(actor: AuthenticatedActor): Promise<string> {
    if (!isServerAdmin(actor) && actor.scope !== 'metrics')
      throw forbidden(
        'only a server admin (not confined to one organization) or a metrics token (svc tokens create --scope metrics) reads the metrics',
      );
    return this.text();
  }

  text(): Promise<string> {
    return this.metrics.registry.metrics();
  }

  // Hooks go on before the server listens (Nest calls onModuleInit during init, after the routes are registered).
  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onSend', (request, reply, payload, done) => {
      this.countDeviceCode(request, reply, payload);
      done(null, payload);
    });
    fastify.addHook('onResponse', (request, reply, done) => {
      this.observeHttp(request, reply);
      done();
    });
    this.unsubscribe.push(
      this.frontier.subscribe({
        computed: (ms) => this.metrics.frontierCompute.observe(ms / 1000),
        graphRefreshed: (ms, outcome) => this.metrics.frontierRefresh.observe({ outcome }, ms / 1000),
        graphsEvicted: (count) => this.metrics.frontierEvictions.inc(count),
      }),
      this.sweeps.subscribe((sweep, outcome, ms) => {
        this.metrics.sweeps.inc({ sweep, outcome });
        if (outcome !== 'skipped') this.metrics.sweepDuration.observe({ sweep }, ms / 1000);
      }),
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.metricsPort === null) return;
    const server = createServer((req, res) => {
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
        return;
      }
      this.text().then(
        (body) => res.writeHead(200, { 'content-type': this.contentType }).end(body),
        (err: unknown) => {
          this.logger.warn(`metrics: ${(err as Error).message}`);
          res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n');
        },
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.config.metricsPort!, this.config.metricsHost, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.localServer = server;
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : this.config.metricsPort;
    const host = this.config.metricsHost.includes(':') ? `[${this.config.metricsHost}]` : this.config.metricsHost;
    daemonNotes.note(`metrics on http://${host}:${port}/metrics`, 'info', { metrics_port: port });
  }

  async onModuleDestroy(): Promise<void> {
    for (const off of this.unsubscribe.splice(0)) off();
    const server = this.localServer;
    this.localServer = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private observeHttp(request: FastifyRequest, reply: FastifyReply): void {
    // (a stream hijacks the reply and writes its headers on the raw response)
    const type = reply.getHeader('content-type') ?? reply.raw.getHeader('content-type');
    // an event stream's "duration" is how long a client stayed: the open-streams gauge tells that story
    if (typeof type === 'string' && type.startsWith('text/event-stream')) return;
    this.metrics.httpDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? UNMATCHED_ROUTE, status_code: reply.statusCode },
      reply.elapsedTime / 1000,
    );
  }

  private countDeviceCode(request: FastifyRequest, reply: FastifyReply, payload: unknown): void {
    const operation = deviceCodeOperation(request.method, request.routeOptions.url);
    if (!operation) return;
    const status = reply.statusCode;
    if (status >= 200 && status < 300 && status !== 202) {
      this.metrics.deviceCodeRequests.inc({ operation, outcome: 'ok' });
      return;
    }
    const code = codeLabel(answerCode(payload));
    this.metrics.deviceCodeRequests.inc({ operation, outcome: code });
    if (status >= 400) this.metrics.deviceCodeRefusals.inc({ operation, code });
  }
}
