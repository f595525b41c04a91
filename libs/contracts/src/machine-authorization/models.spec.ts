import { RETRYABLE_POLL_ERRORS } from './client-helpers';
import {
  buildMachineAuthorizationSchema,
  describeMachineAuthorizationError,
  JsonObject,
  JsonValue,
  MACHINE_AUTHORIZATION_ERROR_CODES,
  MACHINE_AUTHORIZATION_MODEL_NAMES,
  MACHINE_AUTHORIZATION_SECRET_FIELDS,
  MachineAuthorizationErrorCode,
  MachineAuthorizationModelName,
} from './models';

// The Errors table of spec/machine-authorization.md, with the statuses the lead decided for "(not a status)".
const SPEC_ERROR_TABLE: { code: string; status: number; retry: string; endpoint: 'poll' | 'start' | 'discovery' }[] = [
  { code: 'authorization_pending', status: 202, retry: 'retry', endpoint: 'poll' },
  { code: 'machine_credential_unavailable', status: 503, retry: 'retry', endpoint: 'poll' },
  { code: 'authorization_poll_rate_limited', status: 429, retry: 'retry_after', endpoint: 'poll' },
  { code: 'authorization_start_rate_limited', status: 429, retry: 'retry_after', endpoint: 'start' },
  { code: 'authorization_denied', status: 410, retry: 'new_connection', endpoint: 'poll' },
  { code: 'authorization_expired', status: 410, retry: 'new_connection', endpoint: 'poll' },
  { code: 'authorization_consumed', status: 410, retry: 'new_connection', endpoint: 'poll' },
  { code: 'authorization_client_capacity', status: 403, retry: 'fatal', endpoint: 'start' },
  { code: 'authorization_capacity', status: 403, retry: 'fatal', endpoint: 'start' },
  { code: 'oidc_misconfigured', status: 503, retry: 'fatal', endpoint: 'discovery' },
];

const SPEC_MODELS: Record<string, MachineAuthorizationModelName> = {
  authorization_pending: 'MachineAuthorizationPending',
  machine_credential_unavailable: 'MachineAuthorizationUnavailable',
  authorization_poll_rate_limited: 'MachineAuthorizationSlowDown',
  authorization_start_rate_limited: 'MachineAuthorizationSlowDown',
  authorization_denied: 'MachineAuthorizationDenied',
  authorization_expired: 'MachineAuthorizationExpired',
  authorization_consumed: 'MachineAuthorizationExpired',
  authorization_client_capacity: 'MachineAuthorizationRefused',
  authorization_capacity: 'MachineAuthorizationRefused',
  oidc_misconfigured: 'MachineAuthorizationRefused',
};

function objectSchemas(value: JsonValue, found: JsonObject[] = []): JsonObject[] {
  if (Array.isArray(value)) value.forEach((child) => objectSchemas(child, found));
  else if (value !== null && typeof value === 'object') {
    if (value.type === 'object') found.push(value);
    Object.values(value).forEach((child) => objectSchemas(child, found));
  }
  return found;
}

function codesAllowedBy(schema: JsonObject): string[] {
  const code = (schema.properties as Record<string, JsonObject>).code;
  return code.const !== undefined ? [code.const as string] : (code.enum as string[]);
}

describe('machine authorization schema', () => {
  const doc = buildMachineAuthorizationSchema();
  const endpoints = doc['x-http'].endpoints;

  describe('document', () => {
    it('should name the 2020-12 dialect, an id, a title and contract version v1', () => {
      expect(doc.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(doc.$id).toMatch(/machine_authorization\.schema\.v1\.json$/);
      expect(doc.title).toEqual(expect.any(String));
      expect(doc['x-contract-version']).toBe('v1');
    });

    it('should hold every model in $defs and nothing else', () => {
      expect(Object.keys(doc.$defs).sort()).toEqual([...MACHINE_AUTHORIZATION_MODEL_NAMES].sort());
    });

    it('should be strict: every object schema refuses additional properties', () => {
      const schemas = objectSchemas(doc.$defs as unknown as JsonValue);
      expect(schemas.length).toBeGreaterThanOrEqual(MACHINE_AUTHORIZATION_MODEL_NAMES.length);
      for (const schema of schemas) expect(schema.additionalProperties).toBe(false);
    });

    it('should mark exactly the secret fields with x-secret', () => {
      for (const name of MACHINE_AUTHORIZATION_MODEL_NAMES) {
        const properties = doc.$defs[name].properties as Record<string, JsonObject>;
        const marked = Object.keys(properties).filter((key) => properties[key]['x-secret'] === true);
        expect(marked.sort()).toEqual([...MACHINE_AUTHORIZATION_SECRET_FIELDS[name]].sort());
      }
    });

    it('should return a fresh copy on every call', () => {
      const first = buildMachineAuthorizationSchema();
      (first.$defs.MachineAuthorizationApproved as { title?: string }).title = 'changed';
      expect(buildMachineAuthorizationSchema().$defs.MachineAuthorizationApproved.title).toBeUndefined();
    });
  });

  describe('x-http', () => {
    it.each(SPEC_ERROR_TABLE)(
      'should cover $code with status $status and retry $retry',
      ({ code, status, retry, endpoint }) => {
        const outcome = endpoints[endpoint].outcomes.find((o) => o.code === code);
        expect(outcome).toEqual(expect.objectContaining({ code, status, retry, model: SPEC_MODELS[code] }));
      },
    );

    it('should list every error code on at least one endpoint', () => {
      const listed = new Set(Object.values(endpoints).flatMap((e) => e.outcomes.map((o) => o.code)));
      expect([...listed].sort()).toEqual([...MACHINE_AUTHORIZATION_ERROR_CODES].sort());
    });

    it('should name the spec endpoints, request and success models', () => {
      expect(endpoints.start).toEqual(
        expect.objectContaining({
          method: 'POST',
          path: '/api/machine/authorizations',
          request_model: 'MachineAuthorizationStartRequest',
          success: { status: 201, model: 'MachineAuthorizationStarted' },
        }),
      );
      expect(endpoints.start_cloud.request_model).toBe('MachineAuthorizationCloudStartRequest');
      expect(endpoints.poll).toEqual(
        expect.objectContaining({
          method: 'POST',
          path: '/api/machine/authorizations/token',
          request_model: 'MachineAuthorizationPollRequest',
          success: { status: 200, model: 'MachineAuthorizationApproved' },
        }),
      );
      expect(endpoints.discovery).toEqual(
        expect.objectContaining({
          method: 'GET',
          request_model: null,
          success: { status: 200, model: 'MachineAuthorizationDiscovery' },
        }),
      );
      expect(endpoints.get.path).toBe('/v1/machine-authorizations/{code}');
      expect(endpoints.resolve.path).toBe('/v1/machine-authorizations/resolve');
      expect(doc['x-http'].base_paths).toEqual({ self_host: '', cloud: '/api/orgs/{slug}' });
    });

    it('should only name models that exist and whose code schema allows the outcome code', () => {
      for (const endpoint of Object.values(endpoints)) {
        if (endpoint.request_model) expect(doc.$defs[endpoint.request_model]).toBeDefined();
        expect(doc.$defs[endpoint.success.model]).toBeDefined();
        for (const outcome of endpoint.outcomes) {
          expect(codesAllowedBy(doc.$defs[outcome.model])).toContain(outcome.code);
          expect(describeMachineAuthorizationError(outcome.code)).toEqual({
            status: outcome.status,
            model: outcome.model,
            retry: outcome.retry,
          });
        }
      }
    });

    it('should never list one status and code twice on an endpoint', () => {
      for (const endpoint of Object.values(endpoints)) {
        const keys = endpoint.outcomes.map((o) => `${o.status} ${o.code}`);
        expect(new Set(keys).size).toBe(keys.length);
      }
    });

    it('should announce Retry-After exactly on retry_after outcomes', () => {
      for (const outcome of Object.values(endpoints).flatMap((e) => e.outcomes)) {
        expect(outcome.headers ?? []).toEqual(outcome.retry === 'retry_after' ? ['Retry-After'] : []);
      }
    });

    it('should make RETRYABLE_POLL_ERRORS the poll outcomes that are retried', () => {
      const retried = endpoints.poll.outcomes.filter((o) => o.retry === 'retry' || o.retry === 'retry_after');
      expect(retried.map((o) => o.code).sort()).toEqual([...RETRYABLE_POLL_ERRORS].sort());
    });

    it('should give each refusal the decided status', () => {
      expect(describeMachineAuthorizationError(MachineAuthorizationErrorCode.MachineIdentityRequired).status).toBe(400);
      expect(describeMachineAuthorizationError(MachineAuthorizationErrorCode.MachineIdentityMismatch).status).toBe(403);
      expect(describeMachineAuthorizationError(MachineAuthorizationErrorCode.MachineCredentialRefused).status).toBe(
        409,
      );
      expect(describeMachineAuthorizationError(MachineAuthorizationErrorCode.InvalidRequest).status).toBe(400);
      expect(describeMachineAuthorizationError(MachineAuthorizationErrorCode.PayloadTooLarge).status).toBe(413);
      expect(describeMachineAuthorizationError(MachineAuthorizationErrorCode.UnsupportedMediaType).status).toBe(415);
    });
  });
});
