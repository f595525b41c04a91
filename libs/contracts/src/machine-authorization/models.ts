import { assertUnreachable } from '../errors';

export const MACHINE_AUTHORIZATION_CONTRACT_VERSION = 'v1';
export const MACHINE_AUTHORIZATION_SCHEMA_FILE = 'machine_authorization.schema.v1.json';
export const MACHINE_AUTHORIZATION_SCHEMA_ID = `https://svc.dev/schemas/${MACHINE_AUTHORIZATION_SCHEMA_FILE}`;
export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

export enum MachineAuthorizationErrorCode {
  AuthorizationPending = 'authorization_pending',
  MachineCredentialUnavailable = 'machine_credential_unavailable',
  AuthorizationPollRateLimited = 'authorization_poll_rate_limited',
  AuthorizationStartRateLimited = 'authorization_start_rate_limited',
  AuthorizationDenied = 'authorization_denied',
  AuthorizationExpired = 'authorization_expired',
  AuthorizationConsumed = 'authorization_consumed',
  AuthorizationClientCapacity = 'authorization_client_capacity',
  AuthorizationCapacity = 'authorization_capacity',
  OidcMisconfigured = 'oidc_misconfigured',
  MachineCredentialRefused = 'machine_credential_refused',
  MachineIdentityRequired = 'machine_identity_required',
  MachineIdentityMismatch = 'machine_identity_mismatch',
  OrganizationMembershipRequired = 'organization_membership_required',
  ActorDisabled = 'actor_disabled',
  AuthorizationClaimed = 'authorization_claimed',
  AuthorizationAlreadyDecided = 'authorization_already_decided',
  InvalidRequest = 'invalid_request',
  Unauthorized = 'unauthorized',
  Forbidden = 'forbidden',
  NotFound = 'not_found',
  PayloadTooLarge = 'payload_too_large',
  UnsupportedMediaType = 'unsupported_media_type',
  InternalError = 'internal_error',
}

export const MACHINE_AUTHORIZATION_ERROR_CODES: readonly MachineAuthorizationErrorCode[] =
  Object.values(MachineAuthorizationErrorCode);

// The wire string of a code; models use these literal types so plain JSON and enum members both fit.
type Wire<C extends MachineAuthorizationErrorCode> = `${C}`;

export type MachineAuthorizationRetryPolicy = 'retry' | 'retry_after' | 'new_connection' | 'fatal';
export type MachineAuthorizationServerKind = 'self_host' | 'cloud';
export type MachineAuthorizationDecision = 'pending' | 'approved' | 'denied' | 'expired' | 'consumed';
export type MachineAuthorizationResolvedDecision = 'approved' | 'denied';
export type MachineAuthorizationAction = 'approve' | 'deny';

export const MACHINE_AUTHORIZATION_DECISIONS: readonly MachineAuthorizationDecision[] = [
  'pending',
  'approved',
  'denied',
  'expired',
  'consumed',
];
export const MACHINE_AUTHORIZATION_ACTIONS: readonly MachineAuthorizationAction[] = ['approve', 'deny'];

export interface MachineAuthorizationStartRequest {
  machine_id: string;
  machine_name: string;
}

export type MachineAuthorizationCloudStartRequest = Record<string, never>;

export interface MachineAuthorizationPollRequest {
  device_code: string;
  machine_id: string;
  machine_name: string;
}

export interface MachineAuthorizationGetRequest {
  code: string;
}

export interface MachineAuthorizationResolveRequest {
  code: string;
  action: MachineAuthorizationAction;
}

export interface MachineAuthorizationStarted {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

export interface MachineAuthorizationApproved {
  token: string;
  org: string;
  api_url: string;
}

export interface MachineAuthorizationRecovery {
  message?: string;
  detail?: string;
}

export interface MachineAuthorizationPending extends MachineAuthorizationRecovery {
  code: Wire<MachineAuthorizationErrorCode.AuthorizationPending>;
}

export interface MachineAuthorizationDenied extends MachineAuthorizationRecovery {
  code: Wire<MachineAuthorizationErrorCode.AuthorizationDenied>;
}

export interface MachineAuthorizationExpired extends MachineAuthorizationRecovery {
  code: Wire<MachineAuthorizationErrorCode.AuthorizationExpired | MachineAuthorizationErrorCode.AuthorizationConsumed>;
}

export interface MachineAuthorizationSlowDown extends MachineAuthorizationRecovery {
  code: Wire<
    | MachineAuthorizationErrorCode.AuthorizationPollRateLimited
    | MachineAuthorizationErrorCode.AuthorizationStartRateLimited
  >;
}

export interface MachineAuthorizationUnavailable extends MachineAuthorizationRecovery {
  code: Wire<MachineAuthorizationErrorCode.MachineCredentialUnavailable>;
}

export type MachineAuthorizationRefusalCode = Wire<
  | MachineAuthorizationErrorCode.AuthorizationClientCapacity
  | MachineAuthorizationErrorCode.AuthorizationCapacity
  | MachineAuthorizationErrorCode.OidcMisconfigured
  | MachineAuthorizationErrorCode.MachineCredentialRefused
  | MachineAuthorizationErrorCode.MachineIdentityRequired
  | MachineAuthorizationErrorCode.MachineIdentityMismatch
  | MachineAuthorizationErrorCode.OrganizationMembershipRequired
  | MachineAuthorizationErrorCode.ActorDisabled
  | MachineAuthorizationErrorCode.AuthorizationClaimed
  | MachineAuthorizationErrorCode.AuthorizationAlreadyDecided
  | MachineAuthorizationErrorCode.InvalidRequest
  | MachineAuthorizationErrorCode.Unauthorized
  | MachineAuthorizationErrorCode.Forbidden
  | MachineAuthorizationErrorCode.NotFound
  | MachineAuthorizationErrorCode.PayloadTooLarge
  | MachineAuthorizationErrorCode.UnsupportedMediaType
  | MachineAuthorizationErrorCode.InternalError
>;

export interface MachineAuthorizationRefused extends MachineAuthorizationRecovery {
  code: MachineAuthorizationRefusalCode;
}

export interface MachineAuthorizationDiscovery {
  device_code: boolean;
  // Absent on servers that predate it: those offered device codes only with company sign-in.
  company_sign_in?: boolean;
}

export interface MachineAuthorizationRecord {
  code: string;
  machine_name: string;
  machine_id: string;
  expires_at: string;
  decision: MachineAuthorizationDecision;
}

export interface MachineAuthorizationResolveResponse {
  code: string;
  decision: MachineAuthorizationResolvedDecision;
}

export interface MachineAuthorizationModels {
  MachineAuthorizationStartRequest: MachineAuthorizationStartRequest;
  MachineAuthorizationCloudStartRequest: MachineAuthorizationCloudStartRequest;
  MachineAuthorizationPollRequest: MachineAuthorizationPollRequest;
  MachineAuthorizationGetRequest: MachineAuthorizationGetRequest;
  MachineAuthorizationResolveRequest: MachineAuthorizationResolveRequest;
  MachineAuthorizationStarted: MachineAuthorizationStarted;
  MachineAuthorizationApproved: MachineAuthorizationApproved;
  MachineAuthorizationPending: MachineAuthorizationPending;
  MachineAuthorizationDenied: MachineAuthorizationDenied;
  MachineAuthorizationExpired: MachineAuthorizationExpired;
  MachineAuthorizationSlowDown: MachineAuthorizationSlowDown;
  MachineAuthorizationUnavailable: MachineAuthorizationUnavailable;
  MachineAuthorizationRefused: MachineAuthorizationRefused;
  MachineAuthorizationDiscovery: MachineAuthorizationDiscovery;
  MachineAuthorizationRecord: MachineAuthorizationRecord;
  MachineAuthorizationResolveResponse: MachineAuthorizationResolveResponse;
}

export type MachineAuthorizationModelName = keyof MachineAuthorizationModels;

export const MACHINE_AUTHORIZATION_MODEL_NAMES: readonly MachineAuthorizationModelName[] = [
  'MachineAuthorizationStartRequest',
  'MachineAuthorizationCloudStartRequest',
  'MachineAuthorizationPollRequest',
  'MachineAuthorizationGetRequest',
  'MachineAuthorizationResolveRequest',
  'MachineAuthorizationStarted',
  'MachineAuthorizationApproved',
  'MachineAuthorizationPending',
  'MachineAuthorizationDenied',
  'MachineAuthorizationExpired',
  'MachineAuthorizationSlowDown',
  'MachineAuthorizationUnavailable',
  'MachineAuthorizationRefused',
  'MachineAuthorizationDiscovery',
  'MachineAuthorizationRecord',
  'MachineAuthorizationResolveResponse',
];

export type MachineAuthorizationErrorModelName =
  | 'MachineAuthorizationPending'
  | 'MachineAuthorizationDenied'
  | 'MachineAuthorizationExpired'
  | 'MachineAuthorizationSlowDown'
  | 'MachineAuthorizationUnavailable'
  | 'MachineAuthorizationRefused';

// Fields whose values are secrets, per model; the schema marks them `x-secret: true`.
export const MACHINE_AUTHORIZATION_SECRET_FIELDS = {
  MachineAuthorizationStartRequest: [],
  MachineAuthorizationCloudStartRequest: [],
  MachineAuthorizationPollRequest: ['device_code'],
  MachineAuthorizationGetRequest: ['code'],
  MachineAuthorizationResolveRequest: ['code'],
  MachineAuthorizationStarted: ['device_code', 'user_code', 'verification_uri_complete'],
  MachineAuthorizationApproved: ['token'],
  MachineAuthorizationPending: [],
  MachineAuthorizationDenied: [],
  MachineAuthorizationExpired: [],
  MachineAuthorizationSlowDown: [],
  MachineAuthorizationUnavailable: [],
  MachineAuthorizationRefused: [],
  MachineAuthorizationDiscovery: [],
  MachineAuthorizationRecord: ['code'],
  MachineAuthorizationResolveResponse: ['code'],
} as const satisfies { [N in MachineAuthorizationModelName]: readonly (keyof MachineAuthorizationModels[N])[] };

export type MachineAuthorizationSecretField<N extends MachineAuthorizationModelName> =
  (typeof MACHINE_AUTHORIZATION_SECRET_FIELDS)[N][number];

export interface MachineAuthorizationErrorDescription {
  status: number;
  model: MachineAuthorizationErrorModelName;
  retry: MachineAuthorizationRetryPolicy;
}

export function describeMachineAuthorizationError(
  code: MachineAuthorizationErrorCode,
): MachineAuthorizationErrorDescription {
  switch (code) {
    case MachineAuthorizationErrorCode.AuthorizationPending:
      return { status: 202, model: 'MachineAuthorizationPending', retry: 'retry' };
    case MachineAuthorizationErrorCode.MachineCredentialUnavailable:
      return { status: 503, model: 'MachineAuthorizationUnavailable', retry: 'retry' };
    case MachineAuthorizationErrorCode.AuthorizationPollRateLimited:
    case MachineAuthorizationErrorCode.AuthorizationStartRateLimited:
      return { status: 429, model: 'MachineAuthorizationSlowDown', retry: 'retry_after' };
    case MachineAuthorizationErrorCode.AuthorizationDenied:
      return { status: 410, model: 'MachineAuthorizationDenied', retry: 'new_connection' };
    case MachineAuthorizationErrorCode.AuthorizationExpired:
    case MachineAuthorizationErrorCode.AuthorizationConsumed:
      return { status: 410, model: 'MachineAuthorizationExpired', retry: 'new_connection' };
    case MachineAuthorizationErrorCode.AuthorizationClientCapacity:
    case MachineAuthorizationErrorCode.AuthorizationCapacity:
    case MachineAuthorizationErrorCode.MachineIdentityMismatch:
    case MachineAuthorizationErrorCode.OrganizationMembershipRequired:
    case MachineAuthorizationErrorCode.ActorDisabled:
    case MachineAuthorizationErrorCode.AuthorizationClaimed:
    case MachineAuthorizationErrorCode.Forbidden:
      return { status: 403, model: 'MachineAuthorizationRefused', retry: 'fatal' };
    case MachineAuthorizationErrorCode.OidcMisconfigured:
      return { status: 503, model: 'MachineAuthorizationRefused', retry: 'fatal' };
    case MachineAuthorizationErrorCode.MachineCredentialRefused:
    case MachineAuthorizationErrorCode.AuthorizationAlreadyDecided:
      return { status: 409, model: 'MachineAuthorizationRefused', retry: 'fatal' };
    case MachineAuthorizationErrorCode.MachineIdentityRequired:
    case MachineAuthorizationErrorCode.InvalidRequest:
      return { status: 400, model: 'MachineAuthorizationRefused', retry: 'fatal' };
    case MachineAuthorizationErrorCode.Unauthorized:
      return { status: 401, model: 'MachineAuthorizationRefused', retry: 'fatal' };
    case MachineAuthorizationErrorCode.NotFound:
      return { status: 404, model: 'MachineAuthorizationRefused', retry: 'fatal' };
    case MachineAuthorizationErrorCode.PayloadTooLarge:
      return { status: 413, model: 'MachineAuthorizationRefused', retry: 'fatal' };
    case MachineAuthorizationErrorCode.UnsupportedMediaType:
      return { status: 415, model: 'MachineAuthorizationRefused', retry: 'fatal' };
    case MachineAuthorizationErrorCode.InternalError:
      return { status: 500, model: 'MachineAuthorizationRefused', retry: 'fatal' };
    default:
      return assertUnreachable(code, 'machine authorization error code');
  }
}

export function machineAuthorizationErrorStatus(code: MachineAuthorizationErrorCode): number {
  return describeMachineAuthorizationError(code).status;
}

export function isMachineAuthorizationErrorCode(value: unknown): value is MachineAuthorizationErrorCode {
  return typeof value === 'string' && (MACHINE_AUTHORIZATION_ERROR_CODES as readonly string[]).includes(value);
}

export function codesOfModel(model: MachineAuthorizationErrorModelName): MachineAuthorizationErrorCode[] {
  return MACHINE_AUTHORIZATION_ERROR_CODES.filter((code) => describeMachineAuthorizationError(code).model === model);
}

export type MachineAuthorizationEndpointName = 'start' | 'start_cloud' | 'poll' | 'discovery' | 'get' | 'resolve';

export interface MachineAuthorizationHttpOutcome {
  code: MachineAuthorizationErrorCode;
  status: number;
  model: MachineAuthorizationErrorModelName;
  retry: MachineAuthorizationRetryPolicy;
  headers?: readonly string[];
}

export interface MachineAuthorizationHttpEndpoint {
  function?: string;
  method: 'GET' | 'POST';
  path: string;
  server_kinds: readonly MachineAuthorizationServerKind[];
  request_model: MachineAuthorizationModelName | null;
  request_in: 'body' | 'path' | 'none';
  success: { status: number; model: MachineAuthorizationModelName };
  outcomes: readonly MachineAuthorizationHttpOutcome[];
}

export interface MachineAuthorizationHttpContract {
  base_paths: Record<MachineAuthorizationServerKind, string>;
  retry_policies: Record<MachineAuthorizationRetryPolicy, string>;
  endpoints: Record<MachineAuthorizationEndpointName, MachineAuthorizationHttpEndpoint>;
}

export const MACHINE_AUTHORIZATION_PATHS = {
  authorizations: '/api/machine/authorizations',
  token: '/api/machine/authorizations/token',
  cloudBase: '/api/orgs/{slug}',
  record: '/v1/machine-authorizations/{code}',
  resolve: '/v1/machine-authorizations/resolve',
} as const;

const E = MachineAuthorizationErrorCode;
const MALFORMED = [E.InvalidRequest, E.PayloadTooLarge, E.UnsupportedMediaType] as const;
const START_REFUSALS = [
  E.AuthorizationStartRateLimited,
  E.AuthorizationClientCapacity,
  E.AuthorizationCapacity,
] as const;
const APPROVER_REFUSALS = [
  E.Unauthorized,
  E.Forbidden,
  E.ActorDisabled,
  E.OrganizationMembershipRequired,
  E.AuthorizationClaimed,
  E.NotFound,
] as const;

type EndpointDraft = Omit<MachineAuthorizationHttpEndpoint, 'outcomes'> & {
  codes: readonly MachineAuthorizationErrorCode[];
};

const ENDPOINT_DRAFTS: Record<MachineAuthorizationEndpointName, EndpointDraft> = {
  start: {
    method: 'POST',
    path: MACHINE_AUTHORIZATION_PATHS.authorizations,
    server_kinds: ['self_host'],
    request_model: 'MachineAuthorizationStartRequest',
    request_in: 'body',
    success: { status: 201, model: 'MachineAuthorizationStarted' },
    codes: [...START_REFUSALS, E.MachineIdentityRequired, ...MALFORMED, E.InternalError],
  },
  start_cloud: {
    method: 'POST',
    path: MACHINE_AUTHORIZATION_PATHS.authorizations,
    server_kinds: ['cloud'],
    request_model: 'MachineAuthorizationCloudStartRequest',
    request_in: 'body',
    success: { status: 201, model: 'MachineAuthorizationStarted' },
    codes: [...START_REFUSALS, E.NotFound, ...MALFORMED, E.InternalError],
  },
  poll: {
    method: 'POST',
    path: MACHINE_AUTHORIZATION_PATHS.token,
    server_kinds: ['self_host', 'cloud'],
    request_model: 'MachineAuthorizationPollRequest',
    request_in: 'body',
    success: { status: 200, model: 'MachineAuthorizationApproved' },
    codes: [
      E.AuthorizationPending,
      E.MachineCredentialUnavailable,
      E.AuthorizationPollRateLimited,
      E.AuthorizationDenied,
      E.AuthorizationExpired,
      E.AuthorizationConsumed,
      E.MachineCredentialRefused,
      E.MachineIdentityRequired,
      E.MachineIdentityMismatch,
      E.ActorDisabled,
      E.OrganizationMembershipRequired,
      ...MALFORMED,
      E.InternalError,
    ],
  },
  discovery: {
    method: 'GET',
    path: MACHINE_AUTHORIZATION_PATHS.authorizations,
    server_kinds: ['self_host'],
    request_model: null,
    request_in: 'none',
    success: { status: 200, model: 'MachineAuthorizationDiscovery' },
    codes: [E.OidcMisconfigured, E.InternalError],
  },
  get: {
    function: 'machine_authorization.get',
    method: 'GET',
    path: MACHINE_AUTHORIZATION_PATHS.record,
    server_kinds: ['self_host'],
    request_model: 'MachineAuthorizationGetRequest',
    request_in: 'path',
    success: { status: 200, model: 'MachineAuthorizationRecord' },
    codes: [E.InvalidRequest, ...APPROVER_REFUSALS, E.InternalError],
  },
  resolve: {
    function: 'machine_authorization.resolve',
    method: 'POST',
    path: MACHINE_AUTHORIZATION_PATHS.resolve,
    server_kinds: ['self_host'],
    request_model: 'MachineAuthorizationResolveRequest',
    request_in: 'body',
    success: { status: 200, model: 'MachineAuthorizationResolveResponse' },
    codes: [
      ...MALFORMED,
      ...APPROVER_REFUSALS,
      E.AuthorizationAlreadyDecided,
      E.AuthorizationExpired,
      E.AuthorizationConsumed,
      E.InternalError,
    ],
  },
};

function toOutcome(code: MachineAuthorizationErrorCode): MachineAuthorizationHttpOutcome {
  const { status, model, retry } = describeMachineAuthorizationError(code);
  return retry === 'retry_after'
    ? { code, status, model, retry, headers: ['Retry-After'] }
    : { code, status, model, retry };
}

export function buildMachineAuthorizationHttpContract(): MachineAuthorizationHttpContract {
  const endpoints = {} as Record<MachineAuthorizationEndpointName, MachineAuthorizationHttpEndpoint>;
  for (const name of Object.keys(ENDPOINT_DRAFTS) as MachineAuthorizationEndpointName[]) {
    const { codes, ...endpoint } = ENDPOINT_DRAFTS[name];
    const outcomes = codes.map(toOutcome).sort((a, b) => a.status - b.status);
    endpoints[name] = { ...endpoint, outcomes };
  }
  return {
    base_paths: { self_host: '', cloud: MACHINE_AUTHORIZATION_PATHS.cloudBase },
    retry_policies: {
      retry: 'poll the same code again after the normal interval',
      retry_after: 'wait for the Retry-After delay (the normal interval when it is missing or invalid), then repeat',
      new_connection: 'this code is finished; start a new connection',
      fatal: 'stop and show the code with any message or detail',
    },
    endpoints,
  };
}

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

const CONSONANTS = 'BCDFGHJKLMNPQRSTVWXZ';
const ANY_CASE = `${CONSONANTS.toLowerCase()}${CONSONANTS}`;
export const USER_CODE_PATTERN = `^[${CONSONANTS}]{4}-[${CONSONANTS}]{4}$`;
export const USER_CODE_INPUT_PATTERN = `^[${ANY_CASE}]{4}-?[${ANY_CASE}]{4}$`;
// RFC 3986 unreserved characters: safe in a URL, a header and a log line without escaping.
export const OPAQUE_SECRET_PATTERN = '^[A-Za-z0-9._~-]+$';
export const PRINTABLE_TEXT_PATTERN = '^[^\\u0000-\\u001f\\u007f]+$';
export const HTTP_URL_PATTERN = '^https?://[^\\s]+$';
export const ISO_8601_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d{1,9})?(?:Z|[+-]\\d{2}:\\d{2})$';
export const MACHINE_ID_MAX_LENGTH = 128;
export const MACHINE_NAME_MAX_LENGTH = 256;

const machineId = (): JsonObject => ({
  type: 'string',
  minLength: 1,
  maxLength: MACHINE_ID_MAX_LENGTH,
  pattern: PRINTABLE_TEXT_PATTERN,
});
const machineName = (): JsonObject => ({
  type: 'string',
  minLength: 1,
  maxLength: MACHINE_NAME_MAX_LENGTH,
  pattern: PRINTABLE_TEXT_PATTERN,
});
const deviceCode = (): JsonObject => ({
  type: 'string',
  minLength: 16,
  maxLength: 256,
  pattern: OPAQUE_SECRET_PATTERN,
});
const userCodeOutput = (): JsonObject => ({ type: 'string', pattern: USER_CODE_PATTERN });
const userCodeInput = (): JsonObject => ({ type: 'string', maxLength: 9, pattern: USER_CODE_INPUT_PATTERN });
const httpUrl = (): JsonObject => ({ type: 'string', format: 'uri', maxLength: 2048, pattern: HTTP_URL_PATTERN });
const recoveryText = (): JsonObject => ({ type: 'string', maxLength: 2048 });

function codeSchema(model: MachineAuthorizationErrorModelName): JsonObject {
  const codes = codesOfModel(model).sort();
  return codes.length === 1 ? { type: 'string', const: codes[0] } : { type: 'string', enum: codes };
}

function objectSchema(
  description: string,
  properties: { [key: string]: JsonObject },
  required: string[] = Object.keys(properties),
): JsonObject {
  return { type: 'object', description, additionalProperties: false, required, properties };
}

function errorSchema(model: MachineAuthorizationErrorModelName, description: string): JsonObject {
  return objectSchema(description, { code: codeSchema(model), message: recoveryText(), detail: recoveryText() }, [
    'code',
  ]);
}

function withSecretMarks(name: MachineAuthorizationModelName, schema: JsonObject): JsonObject {
  const properties = schema.properties as { [key: string]: JsonObject } | undefined;
  for (const field of MACHINE_AUTHORIZATION_SECRET_FIELDS[name] as readonly string[]) {
    if (!properties?.[field]) throw new Error(`secret field ${name}.${field} is not a property`);
    properties[field] = { ...properties[field], 'x-secret': true };
  }
  return schema;
}

function buildDefs(): Record<MachineAuthorizationModelName, JsonObject> {
  const defs: Record<MachineAuthorizationModelName, JsonObject> = {
    MachineAuthorizationStartRequest: objectSchema('Self-host start body; names the machine before its first poll.', {
      machine_id: machineId(),
      machine_name: machineName(),
    }),
    MachineAuthorizationCloudStartRequest: objectSchema('Cloud start body: an empty object.', {}),
    MachineAuthorizationPollRequest: objectSchema('Poll body, shared by both server kinds.', {
      device_code: deviceCode(),
      machine_id: machineId(),
      machine_name: machineName(),
    }),
    MachineAuthorizationGetRequest: objectSchema('machine_authorization.get input (the code travels in the path).', {
      code: userCodeInput(),
    }),
    MachineAuthorizationResolveRequest: objectSchema('machine_authorization.resolve input.', {
      code: userCodeInput(),
      action: { type: 'string', enum: [...MACHINE_AUTHORIZATION_ACTIONS] },
    }),
    MachineAuthorizationStarted: objectSchema('Start success.', {
      device_code: deviceCode(),
      user_code: userCodeOutput(),
      verification_uri: httpUrl(),
      verification_uri_complete: httpUrl(),
      expires_in: { type: 'integer', description: 'seconds', minimum: 1, maximum: 86400 },
      interval: { type: 'integer', description: 'seconds', minimum: 1, maximum: 300 },
    }),
    MachineAuthorizationApproved: objectSchema('Poll success: the raw machine credential, delivered once.', {
      token: { type: 'string', minLength: 16, maxLength: 4096, pattern: OPAQUE_SECRET_PATTERN },
      org: { type: 'string', minLength: 1, maxLength: 128, pattern: PRINTABLE_TEXT_PATTERN },
      api_url: httpUrl(),
    }),
    MachineAuthorizationPending: errorSchema('MachineAuthorizationPending', 'Not decided yet; poll again.'),
    MachineAuthorizationDenied: errorSchema('MachineAuthorizationDenied', 'Denied; a new connection is required.'),
    MachineAuthorizationExpired: errorSchema(
      'MachineAuthorizationExpired',
      'Expired or already consumed; a new connection is required.',
    ),
    MachineAuthorizationSlowDown: errorSchema(
      'MachineAuthorizationSlowDown',
      'Budget exceeded; repeat after the Retry-After delay.',
    ),
    MachineAuthorizationUnavailable: errorSchema(
      'MachineAuthorizationUnavailable',
      'Credential issuance temporarily unavailable; poll again.',
    ),
    MachineAuthorizationRefused: errorSchema(
      'MachineAuthorizationRefused',
      'Diagnosed refusal; message is self-host recovery text, detail is cloud recovery text.',
    ),
    MachineAuthorizationDiscovery: objectSchema(
      'Self-host discovery; a server that omits company_sign_in predates it.',
      { device_code: { type: 'boolean' }, company_sign_in: { type: 'boolean' } },
      ['device_code'],
    ),
    MachineAuthorizationRecord: objectSchema('machine_authorization.get result.', {
      code: userCodeOutput(),
      machine_name: machineName(),
      machine_id: machineId(),
      expires_at: { type: 'string', format: 'date-time', pattern: ISO_8601_PATTERN },
      decision: { type: 'string', enum: [...MACHINE_AUTHORIZATION_DECISIONS] },
    }),
    MachineAuthorizationResolveResponse: objectSchema('machine_authorization.resolve result.', {
      code: userCodeOutput(),
      decision: { type: 'string', enum: ['approved', 'denied'] },
    }),
  };
  for (const name of MACHINE_AUTHORIZATION_MODEL_NAMES) withSecretMarks(name, defs[name]);
  return defs;
}

export const MACHINE_AUTHORIZATION_DEFS: Readonly<Record<MachineAuthorizationModelName, JsonObject>> =
  deepFreeze(buildDefs());

export interface MachineAuthorizationSchemaDocument {
  $schema: string;
  $id: string;
  title: string;
  description: string;
  'x-contract-version': string;
  $defs: Record<MachineAuthorizationModelName, JsonObject>;
  'x-http': MachineAuthorizationHttpContract;
}

// A fresh copy on every call, so no caller can change the contract another one validates against.
export function buildMachineAuthorizationSchema(): MachineAuthorizationSchemaDocument {
  return {
    $schema: JSON_SCHEMA_DIALECT,
    $id: MACHINE_AUTHORIZATION_SCHEMA_ID,
    title: 'svc machine authorization (device-code connection)',
    description:
      'Generated by npm run contracts:generate from libs/contracts/src/machine-authorization/models.ts; do not edit.',
    'x-contract-version': MACHINE_AUTHORIZATION_CONTRACT_VERSION,
    $defs: structuredClone(MACHINE_AUTHORIZATION_DEFS) as Record<MachineAuthorizationModelName, JsonObject>,
    'x-http': buildMachineAuthorizationHttpContract(),
  };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
