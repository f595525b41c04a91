import { randomBytes, timingSafeEqual } from 'node:crypto';

import { Injectable } from '@nestjs/common';

// Carries a per-process secret, so only this process can make it; the forward drops the header from outside callers.
// inject stays in process, so no replica sees another's inner requests.
export const SCOPE_HEADER = 'x-svc-internal-org-scope';

@Injectable()
export class RequestScopeService {
  private readonly secret = randomBytes(32).toString('base64url');

  header(organizationId: number): string {
    return `${organizationId}.${this.secret}`;
  }

  // null when absent or not made by this process.
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
