import { randomBytes } from 'node:crypto';

import { Inject, Injectable, Logger } from '@nestjs/common';
import type * as OpenIdClient from 'openid-client';

import { notFound } from '../common/domain-error';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ServerSecretService } from '../config/server-secret.service';
import { oidcSettings, OidcSettings } from './oidc-settings';
import { oidcUnavailable, signInActorDisabled, signInFailed, signInNotAdmitted } from './oidc.errors';
import { OidcRepository, SignInActorRow } from './oidc.repository';

type Configured = Extract<OidcSettings, { state: 'configured' }>;

export const OIDC_CALLBACK_PATH = '/machine-approval/oidc/callback';
// How long a started sign-in may take (the binding cookie lives as long).
export const OIDC_SIGN_IN_LIFETIME_SECONDS = 600;
const RANDOM_BYTES = 32;

// openid-client 6 is ESM-only; Node 20.19+ loads it with require() (it has no top-level await). Loaded on first
// use so that nothing else (jest under swc, a daemon without company sign-in) ever touches it.
let library: typeof OpenIdClient | null = null;
function openIdClient(): typeof OpenIdClient {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  library ??= require('openid-client') as typeof OpenIdClient;
  return library;
}

export interface SignInStart {
  location: string;
  // random, in a cookie: the stored sign-in state is found only with it, so another browser's callback finds none
  binding: string;
}

export interface SignInFinish {
  actor: SignInActorRow;
  returnCode: string | null;
}

const random = () => randomBytes(RANDOM_BYTES).toString('base64url');

const LOCAL_PART = /^[^@]+/;

// Company sign-in: OpenID Connect authorization code with PKCE (S256), state and nonce, on openid-client.
@Injectable()
export class OidcService {
  private readonly logger = new Logger('CompanySignIn');
  private readonly settings: OidcSettings;
  private readonly hosted: boolean;
  private configuration: Promise<OpenIdClient.Configuration> | null = null;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly repository: OidcRepository,
    private readonly secret: ServerSecretService,
  ) {
    this.settings = oidcSettings(config);
    this.hosted = config.mode === 'hosted';
  }

  label(): string | null {
    return this.settings.state === 'configured' ? this.settings.label : null;
  }

  // Stored in one row the callback consumes: any replica finishes the flow, and only once.
  async start(origin: string, returnCode: string | null): Promise<SignInStart> {
    const settings = this.configured();
    const client = openIdClient();
    const config = await this.discover(settings);
    const binding = random();
    const state = random();
    const nonce = random();
    const pkceVerifier = random();
    await this.repository.saveSignInState({
      stateDigest: this.digest('oidc_state', state),
      bindingDigest: this.digest('oidc_binding', binding),
      pkceVerifier,
      nonce,
      returnCode,
      lifetimeSeconds: OIDC_SIGN_IN_LIFETIME_SECONDS,
    });
    const location = client.buildAuthorizationUrl(config, {
      redirect_uri: `${origin}${OIDC_CALLBACK_PATH}`,
      scope: 'openid email profile',
      code_challenge: await client.calculatePKCECodeChallenge(pkceVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { location: location.href, binding };
  }

  // The state is consumed before the code is redeemed: a replayed callback is refused even if the provider would
  // accept the same code again.
  async finish(origin: string, callbackUrl: URL, binding: string): Promise<SignInFinish> {
    const settings = this.configured();
    const client = openIdClient();
    const config = await this.discover(settings);
    const state = callbackUrl.searchParams.get('state');
    const stored = state
      ? await this.repository.consumeSignInState(this.digest('oidc_state', state), this.digest('oidc_binding', binding))
      : null;
    if (!stored) {
      this.logger.warn(
        'company sign-in callback without a live sign-in of this browser (replayed, expired or foreign)',
      );
      throw signInFailed('this sign-in was already used, has expired or began in another browser; start again');
    }
    let claims: OpenIdClient.IDToken | undefined;
    try {
      const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: stored.pkce_verifier,
        expectedState: state!,
        expectedNonce: stored.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims();
      // Providers that conform ID token claims to the request put email in the UserInfo response only.
      if (claims && claims.email === undefined) {
        const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
        claims = { ...claims, email: info.email, email_verified: info.email_verified };
      }
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      this.logger.warn(`company sign-in refused by the provider or invalid: ${reason}`);
      throw signInFailed('company sign-in did not complete; start again');
    }
    if (!claims) throw signInFailed('the provider sent no identity; start again');
    const actor = await this.admit(settings, claims, origin);
    if (actor.status !== 'active') {
      throw signInActorDisabled();
    }
    return { actor, returnCode: stored.return_code };
  }

  // Admission: an actor already linked to this company account; else an invited actor (created by an admin with
  // this verified email); else, when the email's domain is allowed, a new member provisioned on first sign-in.
  private async admit(settings: Configured, claims: OpenIdClient.IDToken, _origin: string): Promise<SignInActorRow> {
    const issuer = settings.issuer.href;
    const linked = await this.repository.actorBySubject(issuer, claims.sub);
    if (linked) return linked;
    const email = typeof claims.email === 'string' ? claims.email.toLowerCase() : null;
    const verified = claims.email_verified === true;
    const refused = () => signInNotAdmitted(email);
    if (!email || !verified) throw refused();
    const invited = await this.repository.linkInvited(email, issuer, claims.sub);
    if (invited) return invited;
    // Hosted servers hold many organizations: who joins which is an admin's invitation, never a domain rule.
    const domain = email.slice(email.lastIndexOf('@') + 1);
    if (this.hosted || !settings.allowedDomains.includes(domain)) throw refused();
    const base = (LOCAL_PART.exec(email)?.[0] ?? 'person')
      .replace(/[^A-Za-z0-9._-]/g, '-')
      .replace(/^[^A-Za-z0-9]+/, '')
      .slice(0, 56);
    const provisioned = await this.repository.provision(email, issuer, claims.sub, base || 'person');
    if (!provisioned) throw refused();
    this.logger.log(`company sign-in provisioned actor ${provisioned.name}`);
    return provisioned;
  }

  private configured(): Configured {
    if (this.settings.state !== 'configured') throw notFound('company sign-in');
    return this.settings;
  }

  private discover(settings: Configured): Promise<OpenIdClient.Configuration> {
    if (!this.configuration) {
      const client = openIdClient();
      const insecure = settings.issuer.protocol === 'http:';
      this.configuration = client
        .discovery(
          settings.issuer,
          settings.clientId,
          settings.clientSecret,
          undefined,
          insecure ? { execute: [client.allowInsecureRequests] } : undefined,
        )
        .catch((err: unknown) => {
          this.configuration = null;
          this.logger.warn(`company sign-in: discovery of ${settings.issuer.href} failed: ${(err as Error).message}`);
          throw oidcUnavailable();
        });
    }
    return this.configuration;
  }

  private digest(purpose: string, value: string): Buffer {
    return this.secret.mac(purpose, value);
  }
}
