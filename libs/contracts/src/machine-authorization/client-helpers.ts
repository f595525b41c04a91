import { assertUnreachable } from '../errors';
import {
  buildMachineAuthorizationHttpContract,
  MachineAuthorizationApproved,
  MachineAuthorizationDenied,
  MachineAuthorizationDiscovery,
  MachineAuthorizationEndpointName,
  MachineAuthorizationErrorCode,
  MachineAuthorizationExpired,
  MachineAuthorizationHttpContract,
  MachineAuthorizationHttpOutcome,
  MachineAuthorizationPending,
  MachineAuthorizationRecord,
  MachineAuthorizationRecovery,
  MachineAuthorizationRefusalCode,
  MachineAuthorizationRefused,
  MachineAuthorizationResolveResponse,
  MachineAuthorizationServerKind,
  MachineAuthorizationSlowDown,
  MachineAuthorizationStarted,
  MachineAuthorizationUnavailable,
  USER_CODE_INPUT_PATTERN,
} from './models';
import { validateMachineAuthorizationBody } from './validate';

export { MachineAuthorizationErrorCode } from './models';

export const MACHINE_APPROVAL_PATH = '/machine-approval';
export const BROWSER_VERIFICATION_PATHS: readonly string[] = [MACHINE_APPROVAL_PATH, `${MACHINE_APPROVAL_PATH}/{code}`];

export const POLL_OUTCOMES = [
  'approved',
  'pending',
  'slow_down',
  'unavailable',
  'denied',
  'expired',
  'consumed',
  'refused',
] as const;
export type PollOutcome = (typeof POLL_OUTCOMES)[number];

export const RETRYABLE_POLL_ERRORS: readonly MachineAuthorizationErrorCode[] = [
  MachineAuthorizationErrorCode.AuthorizationPending,
  MachineAuthorizationErrorCode.MachineCredentialUnavailable,
  MachineAuthorizationErrorCode.AuthorizationPollRateLimited,
];

export const MACHINE_AUTHORIZATION_HTTP: MachineAuthorizationHttpContract = buildMachineAuthorizationHttpContract();

export type MachineAuthorizationUrlErrorReason =
  | 'invalid_url'
  | 'unsupported_scheme'
  | 'insecure_http'
  | 'credentials_in_url'
  | 'path_not_allowed'
  | 'foreign_origin'
  | 'authority_mismatch'
  | 'invalid_org_slug'
  | 'invalid_user_code';

export class MachineAuthorizationUrlError extends Error {
  constructor(
    readonly reason: MachineAuthorizationUrlErrorReason,
    message: string,
  ) {
    super(message);
  }
}

export const ORG_SLUG_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

// Messages never repeat the URL: it may carry a password the user pasted by mistake.
function parseUrl(value: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new MachineAuthorizationUrlError('invalid_url', `${what} is not an absolute URL`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new MachineAuthorizationUrlError('credentials_in_url', `${what} must not contain a user name or password`);
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol !== 'http:') {
    throw new MachineAuthorizationUrlError('unsupported_scheme', `${what} must use https`);
  }
  if (!isLoopbackHost(url.hostname)) {
    throw new MachineAuthorizationUrlError('insecure_http', `${what} must use https (plain http only on loopback)`);
  }
  return url;
}

export function authorizationOrigin(serverUrl: string): string {
  const url = parseUrl(serverUrl, 'server URL');
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    throw new MachineAuthorizationUrlError(
      'path_not_allowed',
      'server URL must be an origin (no path, query or fragment)',
    );
  }
  return url.origin;
}

export function isSameOrigin(a: string, b: string): boolean {
  try {
    return parseUrl(a, 'URL').origin === parseUrl(b, 'URL').origin;
  } catch {
    return false;
  }
}

export function sameOriginUrl(base: string, candidate: string): string {
  const origin = parseUrl(base, 'base URL').origin;
  let resolved: URL;
  try {
    resolved = new URL(candidate, `${origin}/`);
  } catch {
    throw new MachineAuthorizationUrlError('invalid_url', 'URL is not valid');
  }
  if (resolved.username !== '' || resolved.password !== '') {
    throw new MachineAuthorizationUrlError('credentials_in_url', 'URL must not contain a user name or password');
  }
  if (resolved.origin !== origin) {
    throw new MachineAuthorizationUrlError('foreign_origin', `URL is not on ${origin}`);
  }
  return resolved.href;
}

export function credentialApiUrl(serverUrl: string, org?: string | null): string {
  const origin = authorizationOrigin(serverUrl);
  if (org === undefined || org === null) return origin;
  if (!ORG_SLUG_PATTERN.test(org)) {
    throw new MachineAuthorizationUrlError(
      'invalid_org_slug',
      'organization slug must be 1-64 letters, digits, _ or -',
    );
  }
  return `${origin}/api/orgs/${org}`;
}

export interface CredentialAuthorityCheck {
  serverUrl: string;
  kind: MachineAuthorizationServerKind;
  approved: MachineAuthorizationApproved;
  // Cloud: the organization the connection was started for, when the client knows it.
  org?: string | null;
}

// Run after body validation and before persisting anything: the credential must name the API authority the
// machine connected to (self-host: the origin; cloud: origin + /api/orgs/<slug>).
export function verifyCredentialAuthority({ serverUrl, kind, approved, org }: CredentialAuthorityCheck): string {
  const expected = credentialApiUrl(serverUrl, kind === 'cloud' ? approved.org : null);
  if (kind === 'cloud' && org !== undefined && org !== null && org !== approved.org) {
    throw new MachineAuthorizationUrlError('authority_mismatch', 'credential names another organization');
  }
  let actual: string;
  try {
    const url = parseUrl(approved.api_url, 'credential API URL');
    if (url.search !== '' || url.hash !== '') throw new Error('query or fragment');
    actual = `${url.origin}${url.pathname.replace(/\/$/, '')}`;
  } catch {
    throw new MachineAuthorizationUrlError('authority_mismatch', `credential API URL is not ${expected}`);
  }
  if (actual !== expected) {
    throw new MachineAuthorizationUrlError('authority_mismatch', `credential API URL is not ${expected}`);
  }
  return expected;
}

const USER_CODE_INPUT = new RegExp(USER_CODE_INPUT_PATTERN);

export function normalizeUserCode(input: string): string | null {
  const trimmed = input.trim();
  if (!USER_CODE_INPUT.test(trimmed)) return null;
  const letters = trimmed.replace('-', '').toUpperCase();
  return `${letters.slice(0, 4)}-${letters.slice(4)}`;
}

export function browserVerificationUrl(serverUrl: string, userCode?: string): string {
  const origin = authorizationOrigin(serverUrl);
  if (userCode === undefined) return `${origin}${MACHINE_APPROVAL_PATH}`;
  const code = normalizeUserCode(userCode);
  if (code === null) throw new MachineAuthorizationUrlError('invalid_user_code', 'user code is not valid');
  return `${origin}${MACHINE_APPROVAL_PATH}/${code}`;
}

export function isBrowserVerificationUrl(serverUrl: string, candidate: string): boolean {
  let url: URL;
  try {
    url = new URL(sameOriginUrl(serverUrl, candidate));
  } catch {
    return false;
  }
  if (url.search !== '' || url.hash !== '') return false;
  if (url.pathname === MACHINE_APPROVAL_PATH) return true;
  const prefix = `${MACHINE_APPROVAL_PATH}/`;
  return url.pathname.startsWith(prefix) && normalizeUserCode(url.pathname.slice(prefix.length)) !== null;
}

export type HeaderBag = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

function headerValue(headers: HeaderBag, name: string): string | string[] | undefined {
  if (typeof headers.get === 'function')
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : bag[key];
}

const IMF_FIXDATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

// Delay in whole seconds from delta-seconds or an HTTP date; null when missing or invalid (the caller then uses
// the normal poll interval).
export function parseRetryAfter(value: string | readonly string[] | null | undefined, now = Date.now()): number | null {
  const raw = typeof value === 'string' ? value : value && value.length === 1 ? value[0] : undefined;
  if (raw === undefined) return null;
  const text = raw.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text);
  if (!IMF_FIXDATE.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

export type MachineAuthorizationErrorBody =
  | MachineAuthorizationPending
  | MachineAuthorizationDenied
  | MachineAuthorizationExpired
  | MachineAuthorizationSlowDown
  | MachineAuthorizationUnavailable
  | MachineAuthorizationRefused;

export interface MachineAuthorizationSuccessModels {
  start: MachineAuthorizationStarted;
  start_cloud: MachineAuthorizationStarted;
  poll: MachineAuthorizationApproved;
  discovery: MachineAuthorizationDiscovery;
  get: MachineAuthorizationRecord;
  resolve: MachineAuthorizationResolveResponse;
}

export type MachineAuthorizationHttpResult<E extends MachineAuthorizationEndpointName> =
  | { kind: 'success'; status: number; value: MachineAuthorizationSuccessModels[E] }
  | {
      kind: 'error';
      status: number;
      outcome: MachineAuthorizationHttpOutcome;
      body: MachineAuthorizationErrorBody;
      retryAfterSeconds: number | null;
    }
  | { kind: 'invalid'; status: number; errors: string[] };

const SAFE_CODE = /^[a-z0-9_]{1,64}$/;

// Matches a response to the endpoint's x-http entry by status and code, then validates the body against the
// $defs entry that entry names. Anything the contract does not list is `invalid`.
export function parseEndpointResponse<E extends MachineAuthorizationEndpointName>(
  endpoint: E,
  status: number,
  headers: HeaderBag,
  bodyText: string,
): MachineAuthorizationHttpResult<E> {
  const spec = MACHINE_AUTHORIZATION_HTTP.endpoints[endpoint];
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    return { kind: 'invalid', status, errors: [`HTTP ${status}: body is not valid JSON`] };
  }
  if (status === spec.success.status) {
    const result = validateMachineAuthorizationBody(spec.success.model, body);
    return result.ok
      ? { kind: 'success', status, value: result.value as MachineAuthorizationSuccessModels[E] }
      : { kind: 'invalid', status, errors: result.errors };
  }
  const code = body !== null && typeof body === 'object' ? (body as { code?: unknown }).code : undefined;
  const outcome = spec.outcomes.find((o) => o.status === status && o.code === code);
  if (!outcome) {
    const shown = typeof code === 'string' && SAFE_CODE.test(code) ? `code ${code}` : 'no known code';
    return { kind: 'invalid', status, errors: [`HTTP ${status} with ${shown} is not an outcome of ${endpoint}`] };
  }
  const result = validateMachineAuthorizationBody(outcome.model, body);
  if (!result.ok) return { kind: 'invalid', status, errors: result.errors };
  const retryAfterSeconds =
    outcome.retry === 'retry_after' ? parseRetryAfter(headerValue(headers, 'retry-after')) : null;
  return { kind: 'error', status, outcome, body: result.value, retryAfterSeconds };
}

export type AuthorizationResponse =
  | { outcome: 'started'; value: MachineAuthorizationStarted }
  | { outcome: 'approved'; value: MachineAuthorizationApproved }
  | ({ outcome: 'pending' } & MachineAuthorizationRecovery)
  | ({
      outcome: 'slow_down';
      code: MachineAuthorizationSlowDown['code'];
      retryAfterSeconds: number | null;
    } & MachineAuthorizationRecovery)
  | ({ outcome: 'unavailable' } & MachineAuthorizationRecovery)
  | ({ outcome: 'denied' | 'expired' | 'consumed' } & MachineAuthorizationRecovery)
  | ({ outcome: 'refused'; status: number; code: MachineAuthorizationRefusalCode } & MachineAuthorizationRecovery)
  | { outcome: 'invalid'; status: number; errors: string[] };

function recoveryOf(body: MachineAuthorizationRecovery): MachineAuthorizationRecovery {
  return {
    ...(body.message !== undefined ? { message: body.message } : {}),
    ...(body.detail !== undefined ? { detail: body.detail } : {}),
  };
}

export function parseAuthorizationResponse(
  status: number,
  headers: HeaderBag,
  bodyText: string,
  endpoint: 'poll' | 'start' | 'start_cloud' = 'poll',
): AuthorizationResponse {
  const result = parseEndpointResponse(endpoint, status, headers, bodyText);
  if (result.kind === 'invalid') return { outcome: 'invalid', status, errors: result.errors };
  if (result.kind === 'success') {
    return endpoint === 'poll'
      ? { outcome: 'approved', value: result.value as MachineAuthorizationApproved }
      : { outcome: 'started', value: result.value as MachineAuthorizationStarted };
  }
  const { body, outcome } = result;
  const recovery = recoveryOf(body);
  switch (outcome.model) {
    case 'MachineAuthorizationPending':
      return { outcome: 'pending', ...recovery };
    case 'MachineAuthorizationUnavailable':
      return { outcome: 'unavailable', ...recovery };
    case 'MachineAuthorizationSlowDown':
      return {
        outcome: 'slow_down',
        code: (body as MachineAuthorizationSlowDown).code,
        retryAfterSeconds: result.retryAfterSeconds,
        ...recovery,
      };
    case 'MachineAuthorizationDenied':
      return { outcome: 'denied', ...recovery };
    case 'MachineAuthorizationExpired':
      return {
        outcome: outcome.code === MachineAuthorizationErrorCode.AuthorizationConsumed ? 'consumed' : 'expired',
        ...recovery,
      };
    case 'MachineAuthorizationRefused':
      return { outcome: 'refused', status, code: (body as MachineAuthorizationRefused).code, ...recovery };
    default:
      return assertUnreachable(outcome.model, 'outcome model');
  }
}
