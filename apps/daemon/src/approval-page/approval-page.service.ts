import { randomBytes, timingSafeEqual } from 'node:crypto';

import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

import { AuthenticatedActor, NO_CREDENTIAL } from '../auth/actor';
import { AccessService } from '../auth/access.service';
import { hashToken } from '../auth/tokens';
import { maError, MaCode } from '../machine-authorization/machine-authorization.errors';
import { signInRateLimited } from './approval-page.errors';
import { MachineAuthorizationService } from '../machine-authorization/machine-authorization.service';
import { COMPANY_SIGN_IN_STARTS_PER_MINUTE, RATE_SCOPES } from '../machine-authorization/limits';
import { RateLimitService } from '../machine-authorization/rate-limit.service';
import { RequestIdentity, RequestIdentityService } from '../machine-authorization/request-identity';
import { ServerSecretService } from '../config/server-secret.service';
import { canonicalUserCode } from '../machine-authorization/user-code';
import { OIDC_SIGN_IN_LIFETIME_SECONDS, OidcService } from '../oidc/oidc.service';
import {
  APPROVAL_BASE,
  codeEntryPage,
  decidedPage,
  errorPage,
  PageContext,
  reviewPage,
  signedInPage,
  signInPage,
} from './approval-page.html';
import { ApprovalPageRepository } from './approval-page.repository';
import { CompanySignInFormDto, DecisionFormDto, SignInFormDto, SignOutFormDto } from './dto/approval-page.dto';
import { readCookie, sessionCookie } from './session-cookie';

export const SESSION_COOKIE = 'svc_approval';
export const SESSION_TTL_SECONDS = 1800;
export const OIDC_COOKIE = 'svc_oidc';
const OIDC_COOKIE_PATH = `${APPROVAL_BASE}/oidc`;
const SIGN_IN_FAILURES_PER_MINUTE = 10;

export interface PageResponse {
  status: number;
  html?: string;
  location?: string;
  cookie?: string | string[];
}

interface Session {
  raw: string;
  actor: AuthenticatedActor;
}

export function userCodeInput(input: string | undefined | null): string | null {
  if (typeof input !== 'string') return null;
  return canonicalUserCode(input.replace(/\s+/g, ''));
}

// API-token or company sign-in, a hashed server-side session in an HttpOnly SameSite=Strict cookie, a CSRF token
// bound to it plus a same-origin check on every POST. GET never changes state.
@Injectable()
export class ApprovalPageService {
  constructor(
    private readonly repository: ApprovalPageRepository,
    private readonly auth: AccessService,
    private readonly authorizations: MachineAuthorizationService,
    private readonly identities: RequestIdentityService,
    private readonly counters: RateLimitService,
    private readonly secret: ServerSecretService,
    private readonly oidc: OidcService,
  ) {}

  async view(request: FastifyRequest, code: string | null, prefill?: string): Promise<PageResponse> {
    const session = await this.session(request);
    const ctx = await this.context(request, session);
    const canonical = code === null ? null : userCodeInput(code);
    if (code !== null && canonical === null) {
      return {
        status: 400,
        html: errorPage(ctx, 400, 'invalid_request', 'a code has eight letters such as BCDF-GHJK'),
      };
    }
    // ?user_code= pre-fills the form (a valid code is carried through sign-in, any text is shown for correction).
    const carried = canonical ?? (prefill !== undefined ? userCodeInput(prefill) : null);
    if (!session) {
      return { status: 200, html: signInPage(ctx, carried, { companySignIn: this.oidc.label() }) };
    }
    if (canonical === null) {
      return { status: 200, html: codeEntryPage(ctx, { code: carried ?? prefill?.slice(0, 16) }) };
    }
    const record = await this.authorizations.get(canonical, session.actor, this.identity(request), null);
    const details = await this.repository.codeContext(this.authorizations.userCodeHash(canonical));
    const reviewCtx = { ...ctx, actor: ctx.actor!, organization: details?.organization ?? ctx.organization };
    return {
      status: 200,
      html: reviewPage(reviewCtx, record, {
        requestedFrom: details?.client_key ?? 'unknown',
        requestedAt: details?.created_at ?? new Date(),
        now: new Date(),
      }),
    };
  }

  entry(code: string | undefined): PageResponse {
    const canonical = userCodeInput(code);
    return { status: 303, location: canonical ? `${APPROVAL_BASE}/${canonical}` : APPROVAL_BASE };
  }

  async signIn(request: FastifyRequest, form: SignInFormDto): Promise<PageResponse> {
    this.assertSameOrigin(request);
    const identity = this.identity(request);
    const budget = await this.counters.peek(RATE_SCOPES.signInFailClient, [identity.clientKey]);
    if (budget.hits >= SIGN_IN_FAILURES_PER_MINUTE) {
      throw signInRateLimited(budget.retryAfter);
    }
    const actor = await this.auth.actorByToken(form.token);
    const code = userCodeInput(form.code);
    if (!actor || actor.via !== 'api_token' || actor.status !== 'active') {
      await this.counters.hit(RATE_SCOPES.signInFailClient, identity.clientKey);
      return {
        status: 401,
        html: signInPage(await this.context(request, null), code, {
          error: 'That API token was not accepted (unknown, revoked, expired or disabled).',
          companySignIn: this.oidc.label(),
        }),
      };
    }
    return this.startSession(identity, actor.id, actor.credentialId, code, null);
  }

  // PKCE, state and nonce bound to a SameSite=Lax cookie (it must come back on the provider's cross-site redirect);
  // each start stores server-side state, so starts are budgeted per client.
  async startCompanySignIn(request: FastifyRequest, form: CompanySignInFormDto): Promise<PageResponse> {
    const identity = this.identity(request);
    const budget = await this.counters.hit(RATE_SCOPES.companySignInStart, identity.clientKey);
    if (budget.hits > COMPANY_SIGN_IN_STARTS_PER_MINUTE) {
      throw signInRateLimited(budget.retryAfter, 'company sign-ins started from this address');
    }
    const started = await this.oidc.start(identity.origin, userCodeInput(form.code));
    return {
      status: 303,
      location: started.location,
      cookie: sessionCookie(OIDC_COOKIE, started.binding, {
        path: OIDC_COOKIE_PATH,
        maxAge: OIDC_SIGN_IN_LIFETIME_SECONDS,
        secure: identity.origin.startsWith('https://'),
        sameSite: 'Lax',
      }),
    };
  }

  async finishCompanySignIn(request: FastifyRequest): Promise<PageResponse> {
    const identity = this.identity(request);
    const binding = readCookie(request.headers.cookie, OIDC_COOKIE);
    if (!binding) throw maError(MaCode.Unauthorized, 'this sign-in expired or began in another browser; start again');
    const callbackUrl = new URL(request.url, identity.origin);
    const { actor, returnCode } = await this.oidc.finish(identity.origin, callbackUrl, binding);
    const clear = sessionCookie(OIDC_COOKIE, '', {
      path: OIDC_COOKIE_PATH,
      maxAge: 0,
      secure: identity.origin.startsWith('https://'),
      sameSite: 'Lax',
    });
    const session = await this.startSession(identity, actor.id, null, returnCode, clear);
    const ctx = await this.context(request, null);
    return { ...session, status: 200, html: signedInPage(ctx, session.location!), location: undefined };
  }

  async decide(request: FastifyRequest, code: string, form: DecisionFormDto): Promise<PageResponse> {
    const session = await this.requireSession(request, form.csrf);
    const result = await this.authorizations.resolve(
      { body: { code: userCodeInput(code) ?? code, action: form.action }, contentType: 'application/json' },
      session.actor,
      this.identity(request),
      null,
    );
    const ctx = await this.context(request, session);
    return { status: 200, html: decidedPage(ctx, result.code, result.decision) };
  }

  async signOut(request: FastifyRequest, form: SignOutFormDto): Promise<PageResponse> {
    const session = await this.requireSession(request, form.csrf);
    await this.repository.deleteSession(hashToken(session.raw));
    return { status: 303, location: APPROVAL_BASE, cookie: this.cookie(this.identity(request), '', 0) };
  }

  // The page header for refusals (no session lookup: the filter must not fail).
  static errorContext(request: FastifyRequest): PageContext {
    return { server: String(request.headers.host ?? 'svc'), organization: null };
  }

  private async startSession(
    identity: RequestIdentity,
    actorId: number,
    apiTokenId: number | null,
    code: string | null,
    extraCookie: string | null,
  ): Promise<PageResponse> {
    const raw = randomBytes(32).toString('base64url');
    await this.repository.createSession(hashToken(raw), actorId, apiTokenId, SESSION_TTL_SECONDS);
    const cookie = this.cookie(identity, raw, SESSION_TTL_SECONDS);
    return {
      status: 303,
      location: code ? `${APPROVAL_BASE}/${code}` : APPROVAL_BASE,
      cookie: extraCookie ? [cookie, extraCookie] : cookie,
    };
  }

  private async context(request: FastifyRequest, session: Session | null): Promise<PageContext> {
    return {
      server: new URL(this.identity(request).origin).host,
      organization: await this.repository.serverOrganization(),
      ...(session ? { actor: { name: session.actor.name, csrf: this.csrfFor(session.raw) } } : {}),
    };
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
        credentialId: row.api_token_id ?? NO_CREDENTIAL,
        machineId: null,
        organizationId: row.organization_id,
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
