import type { IncomingMessage, ServerResponse } from 'node:http';

import { Inject, Injectable, Logger, NestMiddleware } from '@nestjs/common';

import { MachineAuthorizationErrorCode } from '@app/contracts';

import { logServerError, writeErrorResponse } from '../common/response-writer';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { RATE_SCOPES, STARTS_PER_MINUTE } from './limits';
import { rateLimited } from './machine-authorization.errors';
import { machineAuthorizationErrorAnswer } from './machine-authorization.filter';
import { RateLimitRepository } from './rate-limit.repository';
import { RequestIdentityService } from './request-identity';

type Next = (error?: unknown) => void;

// Middlewares answer before Nest's pipeline, so no exception filter runs: same writer and shaping as the filter.
function refuse(req: IncomingMessage, res: ServerResponse, hosted: boolean, exception: unknown, logger: Logger): void {
  const answer = machineAuthorizationErrorAnswer(exception, req.url ?? '', hosted);
  logServerError(logger, answer.status, exception);
  writeErrorResponse(res, answer.status, answer.payload, answer.headers);
}

// onRequest (middie), before the body is read: a request refused as malformed or too large still spends budget.
abstract class BudgetMiddleware implements NestMiddleware {
  private readonly logger = new Logger('MachineAuthorizationBudget');

  protected abstract readonly scope: string;
  protected abstract readonly limit: number;
  protected abstract readonly code: MachineAuthorizationErrorCode;
  protected abstract readonly what: string;

  constructor(
    private readonly identity: RequestIdentityService,
    private readonly counters: RateLimitRepository,
    private readonly config: AppConfig,
  ) {}

  async use(req: IncomingMessage, res: ServerResponse, next: Next): Promise<void> {
    const { clientKey } = this.identity.describe(req);
    const hosted = this.config.mode === 'hosted';
    let count: { hits: number; retryAfter: number };
    try {
      count = await this.counters.hit(this.scope, clientKey);
    } catch (err) {
      refuse(req, res, hosted, err, this.logger);
      return;
    }
    if (count.hits > this.limit) {
      refuse(req, res, hosted, rateLimited(this.code, count.retryAfter, this.what), this.logger);
      return;
    }
    next();
  }
}

@Injectable()
export class StartBudgetMiddleware extends BudgetMiddleware {
  protected readonly scope = RATE_SCOPES.start;
  protected readonly limit = STARTS_PER_MINUTE;
  protected readonly code = MachineAuthorizationErrorCode.AuthorizationStartRateLimited;
  protected readonly what = 'authorization starts';

  constructor(identity: RequestIdentityService, counters: RateLimitRepository, @Inject(APP_CONFIG) config: AppConfig) {
    super(identity, counters, config);
  }
}

// Polls spend inside the poll statement; one Fastify refuses before it spends after the response is sent.
@Injectable()
export class PollBudgetMiddleware implements NestMiddleware {
  private readonly logger = new Logger('MachineAuthorizationBudget');

  constructor(
    private readonly identity: RequestIdentityService,
    private readonly counters: RateLimitRepository,
  ) {}

  use(req: IncomingMessage, res: ServerResponse, next: Next): void {
    const identity = this.identity.describe(req);
    identity.pollBudgetSpent = false;
    res.once('finish', () => {
      if (identity.pollBudgetSpent) return;
      identity.pollBudgetSpent = true;
      this.counters
        .hit(RATE_SCOPES.poll, identity.clientKey)
        .catch((err: unknown) => this.logger.error(`rate counter unavailable: ${(err as Error).message}`));
    });
    next();
  }
}

@Injectable()
export class IdentityMiddleware implements NestMiddleware {
  constructor(private readonly identity: RequestIdentityService) {}

  use(req: IncomingMessage, _res: ServerResponse, next: Next): void {
    this.identity.describe(req);
    next();
  }
}
