import {
  authorizationOrigin,
  BROWSER_VERIFICATION_PATHS,
  browserVerificationUrl,
  credentialApiUrl,
  isBrowserVerificationUrl,
  isLoopbackHost,
  isSameOrigin,
  MachineAuthorizationErrorCode,
  MachineAuthorizationUrlError,
  MachineAuthorizationUrlErrorReason,
  normalizeUserCode,
  parseAuthorizationResponse,
  parseEndpointResponse,
  parseRetryAfter,
  POLL_OUTCOMES,
  RETRYABLE_POLL_ERRORS,
  sameOriginUrl,
  verifyCredentialAuthority,
} from './client-helpers';
import { MachineAuthorizationApproved, MachineAuthorizationStarted } from './models';

const TOKEN = 'svcm_VGhpc0lzQVNlY3JldE1hY2hpbmVDcmVkZW50aWFs';
const DEVICE_CODE = 'dc_Q2hhbmdlTWVQbGVhc2VEb250TG9nTWU';
const APPROVED: MachineAuthorizationApproved = { token: TOKEN, org: 'acme', api_url: 'https://svc.example.com' };
const STARTED: MachineAuthorizationStarted = {
  device_code: DEVICE_CODE,
  user_code: 'BCDF-GHJK',
  verification_uri: 'https://svc.example.com/machine-approval',
  verification_uri_complete: 'https://svc.example.com/machine-approval/BCDF-GHJK',
  expires_in: 600,
  interval: 5,
};

function reasonOf(run: () => unknown): MachineAuthorizationUrlErrorReason | 'none' {
  try {
    run();
  } catch (error) {
    if (error instanceof MachineAuthorizationUrlError) return error.reason;
    throw error;
  }
  return 'none';
}

describe(authorizationOrigin.name, () => {
  it.each([
    ['https://svc.example.com', 'https://svc.example.com'],
    ['https://SVC.Example.com/', 'https://svc.example.com'],
    ['https://svc.example.com:443', 'https://svc.example.com'],
    ['https://svc.example.com:8443', 'https://svc.example.com:8443'],
    ['http://localhost:3000', 'http://localhost:3000'],
    ['http://127.0.0.1:3000/', 'http://127.0.0.1:3000'],
    ['http://[::1]:3000', 'http://[::1]:3000'],
  ])('should normalise %s to %s', (input, origin) => {
    expect(authorizationOrigin(input)).toBe(origin);
  });

  it.each<[string, MachineAuthorizationUrlErrorReason]>([
    ['svc.example.com', 'invalid_url'],
    ['', 'invalid_url'],
    ['http://svc.example.com', 'insecure_http'],
    ['http://10.0.0.5:3000', 'insecure_http'],
    ['http://localhost.evil.com', 'insecure_http'],
    ['ftp://svc.example.com', 'unsupported_scheme'],
    ['javascript:alert(1)', 'unsupported_scheme'],
    ['https://user:secret@svc.example.com', 'credentials_in_url'],
    ['https://svc.example.com/api/orgs/acme', 'path_not_allowed'],
    ['https://svc.example.com/?x=1', 'path_not_allowed'],
    ['https://svc.example.com/#x', 'path_not_allowed'],
  ])('should refuse %s (%s)', (input, reason) => {
    expect(reasonOf(() => authorizationOrigin(input))).toBe(reason);
  });

  it('should not repeat a password in its error', () => {
    expect(() => authorizationOrigin('https://user:hunter2@svc.example.com')).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('hunter2') }),
    );
  });
});

describe(isLoopbackHost.name, () => {
  it('should accept only loopback names', () => {
    expect(['localhost', '127.0.0.1', '127.1.2.3', '[::1]'].every(isLoopbackHost)).toBe(true);
    expect(['10.0.0.1', 'localhost.example.com', '0.0.0.0', 'example.com'].some(isLoopbackHost)).toBe(false);
  });
});

describe(sameOriginUrl.name, () => {
  it('should return the absolute URL when it stays on the origin', () => {
    expect(sameOriginUrl('https://svc.example.com', 'https://svc.example.com/machine-approval')).toBe(
      'https://svc.example.com/machine-approval',
    );
    expect(sameOriginUrl('https://svc.example.com/api/orgs/acme', '/machine-approval')).toBe(
      'https://svc.example.com/machine-approval',
    );
  });

  it.each([
    'https://evil.example.com/machine-approval',
    'http://svc.example.com/machine-approval',
    'https://svc.example.com:8443/machine-approval',
    '//evil.example.com/machine-approval',
    'https://svc.example.com.evil.com/',
  ])('should refuse the foreign origin %s', (candidate) => {
    expect(reasonOf(() => sameOriginUrl('https://svc.example.com', candidate))).toBe('foreign_origin');
  });

  it('should refuse credentials in the candidate', () => {
    expect(reasonOf(() => sameOriginUrl('https://svc.example.com', 'https://a:b@svc.example.com/'))).toBe(
      'credentials_in_url',
    );
  });

  it('should agree with isSameOrigin', () => {
    expect(isSameOrigin('https://svc.example.com/a', 'https://SVC.example.com:443/b')).toBe(true);
    expect(isSameOrigin('https://svc.example.com', 'https://evil.example.com')).toBe(false);
    expect(isSameOrigin('not a url', 'https://svc.example.com')).toBe(false);
  });
});

describe(credentialApiUrl.name, () => {
  it('should be the origin on self-host and origin + /api/orgs/<slug> on cloud', () => {
    expect(credentialApiUrl('https://svc.example.com/')).toBe('https://svc.example.com');
    expect(credentialApiUrl('https://cloud.example.com', 'acme')).toBe('https://cloud.example.com/api/orgs/acme');
  });

  it.each(['', 'a/b', '../x', 'a b', '-acme', 'x'.repeat(65)])('should refuse the slug %j', (slug) => {
    expect(reasonOf(() => credentialApiUrl('https://cloud.example.com', slug))).toBe('invalid_org_slug');
  });
});

describe(verifyCredentialAuthority.name, () => {
  it('should accept the server origin on self-host, with or without a trailing slash', () => {
    expect(
      verifyCredentialAuthority({ serverUrl: 'https://svc.example.com', kind: 'self_host', approved: APPROVED }),
    ).toBe('https://svc.example.com');
    const slash = { ...APPROVED, api_url: 'https://SVC.example.com/' };
    expect(
      verifyCredentialAuthority({ serverUrl: 'https://svc.example.com', kind: 'self_host', approved: slash }),
    ).toBe('https://svc.example.com');
  });

  it('should accept the organization authority on cloud', () => {
    const approved = { ...APPROVED, api_url: 'https://cloud.example.com/api/orgs/acme' };
    expect(
      verifyCredentialAuthority({ serverUrl: 'https://cloud.example.com', kind: 'cloud', approved, org: 'acme' }),
    ).toBe('https://cloud.example.com/api/orgs/acme');
  });

  it.each([
    ['self_host', 'https://evil.example.com'],
    ['self_host', 'http://svc.example.com'],
    ['self_host', 'https://svc.example.com/api/orgs/acme'],
    ['self_host', 'https://svc.example.com/?next=evil'],
    ['cloud', 'https://svc.example.com/api/orgs/other'],
    ['cloud', 'https://svc.example.com'],
  ] as const)('should detect an authority mismatch (%s, %s)', (kind, apiUrl) => {
    const approved = { ...APPROVED, api_url: apiUrl };
    expect(reasonOf(() => verifyCredentialAuthority({ serverUrl: 'https://svc.example.com', kind, approved }))).toBe(
      'authority_mismatch',
    );
  });

  it('should refuse a cloud credential for another organization than the one connected to', () => {
    const approved = { ...APPROVED, org: 'other', api_url: 'https://cloud.example.com/api/orgs/other' };
    expect(
      reasonOf(() =>
        verifyCredentialAuthority({ serverUrl: 'https://cloud.example.com', kind: 'cloud', approved, org: 'acme' }),
      ),
    ).toBe('authority_mismatch');
  });

  it('should never put the token in its error', () => {
    const approved = { ...APPROVED, api_url: 'https://evil.example.com' };
    expect(() =>
      verifyCredentialAuthority({ serverUrl: 'https://svc.example.com', kind: 'self_host', approved }),
    ).toThrow(expect.objectContaining({ message: expect.not.stringContaining(TOKEN) }));
  });
});

describe(normalizeUserCode.name, () => {
  it('should accept any case with or without the dash', () => {
    expect(normalizeUserCode('bcdfghjk')).toBe('BCDF-GHJK');
    expect(normalizeUserCode(' bcdf-GHJK ')).toBe('BCDF-GHJK');
  });

  it('should refuse vowels, digits and wrong lengths', () => {
    for (const input of ['ABCD-EFGH', 'BCDF-GHJ1', 'BCD-GHJK', 'BCDF--GHJK', ''])
      expect(normalizeUserCode(input)).toBeNull();
  });
});

describe('browser verification', () => {
  it('should list /machine-approval and its code form', () => {
    expect(BROWSER_VERIFICATION_PATHS).toEqual(['/machine-approval', '/machine-approval/{code}']);
  });

  it('should build the approval URLs on the server origin', () => {
    expect(browserVerificationUrl('https://svc.example.com')).toBe('https://svc.example.com/machine-approval');
    expect(browserVerificationUrl('https://svc.example.com', 'bcdfghjk')).toBe(
      'https://svc.example.com/machine-approval/BCDF-GHJK',
    );
    expect(reasonOf(() => browserVerificationUrl('https://svc.example.com', 'nope'))).toBe('invalid_user_code');
  });

  it('should recognise only same-origin approval URLs', () => {
    expect(isBrowserVerificationUrl('https://svc.example.com', STARTED.verification_uri)).toBe(true);
    expect(isBrowserVerificationUrl('https://svc.example.com', STARTED.verification_uri_complete)).toBe(true);
    expect(isBrowserVerificationUrl('https://svc.example.com', 'https://evil.example.com/machine-approval')).toBe(
      false,
    );
    expect(isBrowserVerificationUrl('https://svc.example.com', 'https://svc.example.com/login')).toBe(false);
    expect(isBrowserVerificationUrl('https://svc.example.com', 'https://svc.example.com/machine-approval/x/y')).toBe(
      false,
    );
  });
});

describe(parseRetryAfter.name, () => {
  const now = Date.parse('2025-11-22T04:00:00Z');

  it('should read delta-seconds', () => {
    expect(parseRetryAfter('7', now)).toBe(7);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter(['30'], now)).toBe(30);
  });

  it('should read an HTTP date relative to now, never below zero', () => {
    expect(parseRetryAfter('Sat, 22 Nov 2025 04:00:12 GMT', now)).toBe(12);
    expect(parseRetryAfter('Sat, 22 Nov 2025 03:59:00 GMT', now)).toBe(0);
  });

  it.each([
    undefined,
    null,
    '',
    '-1',
    '1.5',
    'soon',
    '5s',
    '0x10',
    'Sat, 99 Foo 2025 04:00:12 GMT',
    '2025-11-22',
    ['1', '2'],
    [],
  ])('should give null for a missing or invalid value (%j)', (value) => {
    expect(parseRetryAfter(value, now)).toBeNull();
  });
});

describe(parseAuthorizationResponse.name, () => {
  const json = (body: unknown): string => JSON.stringify(body);

  it('should return approved with the validated value on 200', () => {
    expect(parseAuthorizationResponse(200, {}, json(APPROVED))).toEqual({ outcome: 'approved', value: APPROVED });
  });

  it('should return started on a 201 start response', () => {
    expect(parseAuthorizationResponse(201, {}, json(STARTED), 'start')).toEqual({ outcome: 'started', value: STARTED });
  });

  it.each([
    [202, { code: 'authorization_pending' }, { outcome: 'pending' }],
    [503, { code: 'machine_credential_unavailable', message: 'retry' }, { outcome: 'unavailable', message: 'retry' }],
    [410, { code: 'authorization_denied' }, { outcome: 'denied' }],
    [410, { code: 'authorization_expired', detail: 'gone' }, { outcome: 'expired', detail: 'gone' }],
    [410, { code: 'authorization_consumed' }, { outcome: 'consumed' }],
    [
      403,
      { code: 'machine_identity_mismatch', message: 'poll from the machine that started' },
      {
        outcome: 'refused',
        status: 403,
        code: 'machine_identity_mismatch',
        message: 'poll from the machine that started',
      },
    ],
    [
      409,
      { code: 'machine_credential_refused', detail: 'd' },
      { outcome: 'refused', status: 409, code: 'machine_credential_refused', detail: 'd' },
    ],
  ])('should classify HTTP %i %j', (status, body, expected) => {
    expect(parseAuthorizationResponse(status, {}, json(body))).toEqual(expected);
  });

  it('should read Retry-After on slow_down, case-insensitively, from a record or a Headers object', () => {
    const body = json({ code: 'authorization_poll_rate_limited' });
    expect(parseAuthorizationResponse(429, { 'Retry-After': '9' }, body)).toEqual({
      outcome: 'slow_down',
      code: 'authorization_poll_rate_limited',
      retryAfterSeconds: 9,
    });
    expect(parseAuthorizationResponse(429, new Headers({ 'retry-after': '3' }), body)).toMatchObject({
      retryAfterSeconds: 3,
    });
  });

  it('should give retryAfterSeconds null when Retry-After is missing or invalid', () => {
    const body = json({ code: 'authorization_poll_rate_limited' });
    expect(parseAuthorizationResponse(429, {}, body)).toMatchObject({ outcome: 'slow_down', retryAfterSeconds: null });
    expect(parseAuthorizationResponse(429, { 'retry-after': 'later' }, body)).toMatchObject({
      retryAfterSeconds: null,
    });
  });

  it('should keep capacity refusals fatal with their recovery text', () => {
    const body = json({ code: 'authorization_client_capacity', message: 'finish an approval or wait' });
    expect(parseAuthorizationResponse(403, {}, body, 'start')).toEqual({
      outcome: 'refused',
      status: 403,
      code: 'authorization_client_capacity',
      message: 'finish an approval or wait',
    });
  });

  it.each([
    ['a code under the wrong status', 410, json({ code: 'authorization_pending' })],
    ['a code the endpoint does not list', 403, json({ code: 'authorization_client_capacity' })],
    ['an unknown code', 400, json({ code: 'brand_new' })],
    ['an unknown field', 202, json({ code: 'authorization_pending', retry: 1 })],
    ['a success body with an unknown field', 200, json({ ...APPROVED, extra: 1 })],
    ['a success body missing a field', 200, json({ token: TOKEN, org: 'acme' })],
    ['a body that is not JSON', 502, '<html>Bad Gateway</html>'],
    ['an empty body', 202, ''],
    ['a status outside the contract', 418, json({ code: 'authorization_pending' })],
  ])('should return invalid for %s', (_what, status, text) => {
    const result = parseAuthorizationResponse(status, {}, text);
    expect(result).toEqual({ outcome: 'invalid', status, errors: expect.any(Array) });
  });

  it('should keep the token out of invalid errors', () => {
    const result = parseAuthorizationResponse(200, {}, json({ ...APPROVED, token: `${TOKEN} !`, [TOKEN]: TOKEN }));
    expect(result.outcome).toBe('invalid');
    expect(JSON.stringify(result)).not.toContain(TOKEN);
  });

  it('should only produce outcomes listed in POLL_OUTCOMES for poll bodies', () => {
    const bodies: [number, unknown][] = [
      [200, APPROVED],
      [202, { code: 'authorization_pending' }],
      [429, { code: 'authorization_poll_rate_limited' }],
      [503, { code: 'machine_credential_unavailable' }],
      [410, { code: 'authorization_denied' }],
      [410, { code: 'authorization_expired' }],
      [410, { code: 'authorization_consumed' }],
      [400, { code: 'invalid_request' }],
    ];
    const seen = bodies.map(([status, body]) => parseAuthorizationResponse(status, {}, json(body)).outcome);
    expect([...new Set(seen)].sort()).toEqual([...POLL_OUTCOMES].sort());
  });
});

describe(parseEndpointResponse.name, () => {
  it('should validate the discovery, record and resolve responses', () => {
    expect(parseEndpointResponse('discovery', 200, {}, '{"device_code":true,"company_sign_in":true}')).toMatchObject({
      kind: 'success',
    });
    expect(parseEndpointResponse('discovery', 503, {}, '{"code":"oidc_misconfigured","message":"m"}')).toMatchObject({
      kind: 'error',
      outcome: { code: 'oidc_misconfigured', retry: 'fatal' },
    });
    expect(parseEndpointResponse('resolve', 200, {}, '{"code":"BCDF-GHJK","decision":"approved"}')).toMatchObject({
      kind: 'success',
      value: { decision: 'approved' },
    });
    expect(parseEndpointResponse('get', 200, {}, '{"code":"BCDF-GHJK"}')).toMatchObject({ kind: 'invalid' });
  });
});

describe('constants', () => {
  it('should retry exactly pending, unavailable and poll throttling', () => {
    expect(RETRYABLE_POLL_ERRORS).toEqual([
      MachineAuthorizationErrorCode.AuthorizationPending,
      MachineAuthorizationErrorCode.MachineCredentialUnavailable,
      MachineAuthorizationErrorCode.AuthorizationPollRateLimited,
    ]);
  });
});
