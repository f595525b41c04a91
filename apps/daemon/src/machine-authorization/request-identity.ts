import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

import { createParamDecorator, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

import { APP_CONFIG, AppConfig } from '../config/app-config';
import {
  clientAddress,
  clientKey,
  compileTrust,
  networkKey,
  TrustFunction,
  wideNetworkKey,
} from '../common/client-identity';

export interface RequestIdentity {
  clientKey: string;
  networkKey: string;
  wideNetworkKey: string;
  origin: string;
  // Poll budget: spent by the poll statement itself, else after the response (see PollBudgetMiddleware).
  pollBudgetSpent?: boolean;
}

const IDENTITY = Symbol('svc.machineAuthIdentity');
type Tagged = IncomingMessage & { [IDENTITY]?: RequestIdentity };

const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

@Injectable()
export class RequestIdentityService {
  private readonly trust: TrustFunction;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.trust = compileTrust(config.trustedProxies);
  }

  describe(req: IncomingMessage): RequestIdentity {
    const tagged = req as Tagged;
    if (!tagged[IDENTITY]) {
      const address = clientAddress(req, this.trust);
      tagged[IDENTITY] = {
        clientKey: clientKey(address),
        networkKey: networkKey(address),
        wideNetworkKey: wideNetworkKey(address),
        origin: this.originOf(req),
      };
    }
    return tagged[IDENTITY];
  }

  // SVC_PUBLIC_URL when set; else the Host the request named (X-Forwarded-Proto/Host only from a declared proxy).
  private originOf(req: IncomingMessage): string {
    if (this.config.publicUrl) return this.config.publicUrl;
    const peer = req.socket.remoteAddress ?? '';
    const fromProxy = peer !== '' && this.trust(peer, 0);
    const first = (value: string | string[] | undefined) =>
      (Array.isArray(value) ? value[0] : value)?.split(',')[0]?.trim();
    const forwardedProto = fromProxy ? first(req.headers['x-forwarded-proto']) : undefined;
    const forwardedHost = fromProxy ? first(req.headers['x-forwarded-host']) : undefined;
    const proto =
      forwardedProto === 'https' || forwardedProto === 'http'
        ? forwardedProto
        : (req.socket as TLSSocket).encrypted
          ? 'https'
          : 'http';
    const host = [forwardedHost, req.headers.host].find((h) => h !== undefined && HOST.test(h));
    return `${proto}://${host ?? `${this.config.host}:${this.config.port}`}`;
  }
}

export const Identity = createParamDecorator((_data: unknown, ctx: ExecutionContext): RequestIdentity => {
  const raw = ctx.switchToHttp().getRequest<FastifyRequest>().raw as Tagged;
  const identity = raw[IDENTITY];
  if (!identity) throw new Error('request identity middleware did not run');
  return identity;
});
