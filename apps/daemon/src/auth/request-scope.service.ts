import { randomBytes, timingSafeEqual } from 'node:crypto';

import { Injectable } from '@nestjs/common';

// The hosted forward (/api/orgs/<slug>/v1/... → /v1/... through fastify.inject) confines the inner request to the
// path's organization with this header. Its value carries a secret drawn once per process, so only this process can
// make it: the guard honours the header only when the secret matches, and the forward drops the header from what
// an outside caller sent. A replica never sees another's inner requests (inject stays in process).
export const SCOPE_HEADER = 'x-svc-internal-org-scope';

@Injectable()
export class RequestScopeService {
  private readonly secret = randomBytes(32).toString('base64url');

  header(organizationId: number): string {
    return `${organizationId}.${this.secret}`;
  }

  // The organization id the header confines the request to, or null when absent or not made by this process.
  read(value: string | string[] | undefined): number | null {
    if (typeof value !== 'string') return null;
    const dot = value.indexOf('.');
    if (dot <= 0) return null;
    const given = Buffer.from(value.slice(dot + 1), 'utf8');
    const wanted = Buffer.from(this.secret, 'utf8');
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return null;
    const id = Number(value.slice(0, dot));
    return Number.isSafeInteger(id) && id > 0 ? id : null;
  }
}
