import { randomBytes, timingSafeEqual } from 'node:crypto';

import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

import { AuthenticatedActor } from '../auth/actor';
import { AuthRepository } from '../auth/auth.repository';
import { hashToken } from '../auth/tokens';
import { DomainError } from '../common/domain-error';
import { maError, MaCode } from '../machine-authorization/machine-authorization.errors';
import { MachineAuthorizationService } from '../machine-authorization/machine-authorization.service';
import { RATE_SCOPES } from '../machine-authorization/limits';
import { RateLimitRepository } from '../machine-authorization/rate-limit.repository';
import { RequestIdentity, RequestIdentityService } from '../machine-authorization/request-identity';
import { ServerSecretService } from '../machine-authorization/server-secret.service';
import { canonicalUserCode } from '../machine-authorization/user-code';
import { APPROVAL_BASE, codeEntryPage, decidedPage, errorPage, reviewPage, signInPage } from './approval-page.html';
import { ApprovalPageRepository } from './approval-page.repository';
import { DecisionFormDto, SignInFormDto, SignOutFormDto } from './dto/approval-page.dto';
import { readCookie, sessionCookie } from './session-cookie';

export const SESSION_COOKIE = 'svc_approval';
export const SESSION_TTL_SECONDS = 1800;
const SIGN_IN_FAILURES_PER_MINUTE = 10;

export interface PageResponse {
  status: number;
  html?: string;
  location?: string;
  cookie?: string;
}

interface Session {
  raw: string;
  actor: AuthenticatedActor;
}

// The browser side of machine_authorization.get/.resolve: an API-token sign-in, a hashed server-side session in
// an HttpOnly SameSite=Strict cookie, a synchronizer CSRF token bound to it plus a same-origin check on every
// POST. GET never changes state: opening verification_uri_complete only shows the code.
@Injectable()
export class ApprovalPageService {
  constructor(
    private readonly repository: ApprovalPageRepository,
    private readonly auth: AuthRepository,
    private readonly authorizations: MachineAuthorizationService,
    private readonly identities: RequestIdentityService,
    private readonly counters: RateLimitRepository,
    private readonly secret: ServerSecretService,
  ) {}

  async view(request: FastifyRequest, code: string | null): Promise<PageResponse> {
    const session = await this.session(request);
    if (code !== null && canonicalUserCode(code) === null) {
      return { status: 400, html: errorPage(400, 'invalid_request', 'a code has eight letters such as BCDF-GHJK') };
    }
    const canonical = code === null ? null : canonicalUserCode(code);
    if (!session) return { status: 200, html: signInPage(canonical) };
    const csrf = this.csrfFor(session.raw);
    if (canonical === null) return { status: 200, html: codeEntryPage(session.actor.name, csrf) };
    const record = await this.authorizations.get(canonical, session.actor, this.identity(request), null);
    return { status: 200, html: reviewPage(session.actor.name, record, csrf) };
  }

  entry(code: string | undefined): PageResponse {
    const canonical = code === undefined ? null : canonicalUserCode(code);
    return { status: 303, location: canonical ? `${APPROVAL_BASE}/${canonical}` : APPROVAL_BASE };
  }

  async signIn(request: FastifyRequest, form: SignInFormDto): Promise<PageResponse> {
    this.assertSameOrigin(request);
    const identity = this.identity(request);
    const budget = await this.counters.peek(RATE_SCOPES.signInFailClient, [identity.clientKey]);
    if (budget.hits >= SIGN_IN_FAILURES_PER_MINUTE) {
      throw new DomainError(
        'sign_in_rate_limited',
        `too many failed sign-ins; retry in ${budget.retryAfter} s`,
        429,
        {},
        {
          'retry-after': String(budget.retryAfter),
        },
      );
    }
    const actor = await this.auth.findActorByCredentialHash(hashToken(form.token));
    if (!actor || actor.via !== 'api_token' || actor.status !== 'active') {
      await this.counters.hit(RATE_SCOPES.signInFailClient, identity.clientKey);
      const code = form.code ? canonicalUserCode(form.code) : null;
      return { status: 401, html: signInPage(code, 'That API token was not accepted (unknown, revoked or disabled).') };
    }
    const raw = randomBytes(32).toString('base64url');
    await this.repository.createSession(hashToken(raw), actor.id, SESSION_TTL_SECONDS);
    const code = form.code ? canonicalUserCode(form.code) : null;
    return {
      status: 303,
      location: code ? `${APPROVAL_BASE}/${code}` : APPROVAL_BASE,
      cookie: this.cookie(identity, raw, SESSION_TTL_SECONDS),
    };
  }

  async decide(request: FastifyRequest, code: string, form: DecisionFormDto): Promise<PageResponse> {
    const session = await this.requireSession(request, form.csrf);
    const result = await this.authorizations.resolve(
      { body: { code, action: form.action }, contentType: 'application/json' },
      session.actor,
      this.identity(request),
      null,
    );
    return { status: 200, html: decidedPage(result.code, result.decision) };
  }

  async signOut(request: FastifyRequest, form: SignOutFormDto): Promise<PageResponse> {
    const session = await this.requireSession(request, form.csrf);
    await this.repository.deleteSession(hashToken(session.raw));
    return { status: 303, location: APPROVAL_BASE, cookie: this.cookie(this.identity(request), '', 0) };
  }

  private identity(request: FastifyRequest): RequestIdentity {
    return this.identities.describe(request.raw);
  }

  private async requireSession(request: FastifyRequest, csrf: string): Promise<Session> {
    this.assertSameOrigin(request);
    const session = await this.session(request);
    if (!session) throw maError(MaCode.Unauthorized, 'your sign-in expired; sign in again');
    const expected = this.csrfFor(session.raw);
    const given = Buffer.from(csrf, 'utf8');
    const wanted = Buffer.from(expected, 'utf8');
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) {
      throw maError(MaCode.Forbidden, 'the form is stale or was not sent by this page; reload it and try again');
    }
    return session;
  }

  private async session(request: FastifyRequest): Promise<Session | null> {
    const raw = readCookie(request.headers.cookie, SESSION_COOKIE);
    if (!raw) return null;
    const row = await this.repository.findSessionActor(hashToken(raw));
    if (!row) return null;
    return {
      raw,
      actor: {
        id: row.id,
        name: row.name,
        isAdmin: row.is_admin,
        status: 'active',
        via: 'api_token',
        credentialId: 0,
        machineId: null,
        organizationId: null,
      },
    };
  }

  private csrfFor(rawSession: string): string {
    return this.secret.mac('approval_csrf', rawSession).toString('base64url');
  }

  // Browsers send Origin on every form POST; Referer is the fallback. Anything else is refused.
  private assertSameOrigin(request: FastifyRequest): void {
    const expected = this.identity(request).origin;
    const origin = request.headers.origin;
    const referer = request.headers.referer;
    const ok = origin !== undefined ? origin === expected : referer !== undefined && referer.startsWith(`${expected}/`);
    if (!ok) throw maError(MaCode.Forbidden, 'cross-site request refused; open the page from this server');
  }

  private cookie(identity: RequestIdentity, value: string, maxAge: number): string {
    return sessionCookie(SESSION_COOKIE, value, {
      path: APPROVAL_BASE,
      maxAge,
      secure: identity.origin.startsWith('https://'),
    });
  }
}
