import { MACHINE_AUTHORIZATION_MODEL_NAMES, MachineAuthorizationModelName, MachineAuthorizationModels } from './models';
import {
  assertMachineAuthorizationBody,
  MachineAuthorizationValidationError,
  parseMachineAuthorizationBody,
  validateMachineAuthorizationBody,
} from './validate';

const DEVICE_CODE = 'dc_Q2hhbmdlTWVQbGVhc2VEb250TG9nTWU';
const TOKEN = 'svcm_VGhpc0lzQVNlY3JldE1hY2hpbmVDcmVkZW50aWFs';
const USER_CODE = 'BCDF-GHJK';

const SAMPLES: { [N in MachineAuthorizationModelName]: MachineAuthorizationModels[N] } = {
  MachineAuthorizationStartRequest: { machine_id: '3f1c2a9e-4b7d-4c1e-9a0b-5d6e7f8a9b0c', machine_name: 'ana-laptop' },
  MachineAuthorizationCloudStartRequest: {},
  MachineAuthorizationPollRequest: { device_code: DEVICE_CODE, machine_id: 'm-1', machine_name: 'ana-laptop' },
  MachineAuthorizationGetRequest: { code: 'bcdfghjk' },
  MachineAuthorizationResolveRequest: { code: USER_CODE, action: 'approve' },
  MachineAuthorizationStarted: {
    device_code: DEVICE_CODE,
    user_code: USER_CODE,
    verification_uri: 'https://svc.example.com/machine-approval',
    verification_uri_complete: `https://svc.example.com/machine-approval/${USER_CODE}`,
    expires_in: 600,
    interval: 5,
  },
  MachineAuthorizationApproved: { token: TOKEN, org: 'acme', api_url: 'https://svc.example.com' },
  MachineAuthorizationPending: { code: 'authorization_pending' },
  MachineAuthorizationDenied: { code: 'authorization_denied', message: 'ask again' },
  MachineAuthorizationExpired: { code: 'authorization_consumed', detail: 'start a new connection' },
  MachineAuthorizationSlowDown: { code: 'authorization_poll_rate_limited' },
  MachineAuthorizationUnavailable: { code: 'machine_credential_unavailable', message: 'try again' },
  MachineAuthorizationRefused: { code: 'authorization_client_capacity', message: 'finish an approval', detail: 'x' },
  MachineAuthorizationDiscovery: { device_code: true, company_sign_in: false },
  MachineAuthorizationRecord: {
    code: USER_CODE,
    machine_name: 'ana-laptop',
    machine_id: 'm-1',
    expires_at: '2025-11-22T04:17:00.000Z',
    decision: 'pending',
  },
  MachineAuthorizationResolveResponse: { code: USER_CODE, decision: 'denied' },
};

// A field of each model and a value of the wrong type for it.
const WRONG_TYPES: { [N in MachineAuthorizationModelName]: [string, unknown] | null } = {
  MachineAuthorizationStartRequest: ['machine_id', 42],
  MachineAuthorizationCloudStartRequest: null,
  MachineAuthorizationPollRequest: ['device_code', ['x']],
  MachineAuthorizationGetRequest: ['code', null],
  MachineAuthorizationResolveRequest: ['action', true],
  MachineAuthorizationStarted: ['expires_in', '600'],
  MachineAuthorizationApproved: ['token', { raw: TOKEN }],
  MachineAuthorizationPending: ['code', 202],
  MachineAuthorizationDenied: ['message', 1],
  MachineAuthorizationExpired: ['detail', false],
  MachineAuthorizationSlowDown: ['code', null],
  MachineAuthorizationUnavailable: ['code', {}],
  MachineAuthorizationRefused: ['message', ['a']],
  MachineAuthorizationDiscovery: ['company_sign_in', 'yes'],
  MachineAuthorizationRecord: ['expires_at', 1763784000],
  MachineAuthorizationResolveResponse: ['decision', 1],
};

const expectRefused = (model: MachineAuthorizationModelName, body: unknown): string[] => {
  const result = validateMachineAuthorizationBody(model, body);
  expect(result.ok).toBe(false);
  return result.ok ? [] : result.errors;
};

describe(validateMachineAuthorizationBody.name, () => {
  describe.each(MACHINE_AUTHORIZATION_MODEL_NAMES.map((name) => [name]))('%s', (name) => {
    it('should accept a valid sample', () => {
      expect(validateMachineAuthorizationBody(name, SAMPLES[name])).toEqual({ ok: true, value: SAMPLES[name] });
    });

    it('should refuse an unknown field and name it', () => {
      const errors = expectRefused(name, { ...SAMPLES[name], extra: 1 });
      expect(errors).toContain("/ must NOT have additional property 'extra'");
    });

    it('should refuse an own __proto__ key made by JSON.parse', () => {
      const fields = JSON.stringify(SAMPLES[name]).slice(1, -1);
      const body: unknown = JSON.parse(`{"__proto__": {"polluted": true}${fields ? `, ${fields}` : ''}}`);
      expect(Object.prototype.hasOwnProperty.call(body, '__proto__')).toBe(true);
      expect(expectRefused(name, body)).toContain("/ must NOT have additional property '__proto__'");
      expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    });

    it('should refuse a non-object body', () => {
      for (const body of [null, [], 'x', 1, undefined]) expect(expectRefused(name, body)).toEqual(['/ must be object']);
    });

    it('should refuse a wrong type', () => {
      const wrong = WRONG_TYPES[name];
      if (!wrong) return;
      const [field, value] = wrong;
      const errors = expectRefused(name, { ...SAMPLES[name], [field]: value });
      expect(errors.some((e) => e.startsWith(`/${field} `))).toBe(true);
    });
  });

  describe('required fields', () => {
    it('should list every missing field', () => {
      expect(expectRefused('MachineAuthorizationPollRequest', {})).toEqual([
        "/ must have required property 'device_code'",
        "/ must have required property 'machine_id'",
        "/ must have required property 'machine_name'",
      ]);
    });

    it('should accept discovery without company_sign_in (a server that predates it)', () => {
      expect(validateMachineAuthorizationBody('MachineAuthorizationDiscovery', { device_code: true }).ok).toBe(true);
    });
  });

  describe('limits and formats', () => {
    it('should bound machine_id to 128 and machine_name to 256 characters', () => {
      const ok = { machine_id: 'i'.repeat(128), machine_name: 'n'.repeat(256) };
      expect(validateMachineAuthorizationBody('MachineAuthorizationStartRequest', ok).ok).toBe(true);
      expect(expectRefused('MachineAuthorizationStartRequest', { ...ok, machine_id: 'i'.repeat(129) })).toEqual([
        '/machine_id must NOT have more than 128 characters',
      ]);
      expect(expectRefused('MachineAuthorizationStartRequest', { ...ok, machine_name: 'n'.repeat(257) })).toEqual([
        '/machine_name must NOT have more than 256 characters',
      ]);
    });

    it('should refuse empty or control-character machine names', () => {
      expectRefused('MachineAuthorizationStartRequest', { machine_id: 'm', machine_name: '' });
      expectRefused('MachineAuthorizationStartRequest', { machine_id: 'm', machine_name: 'a\nb' });
    });

    it('should emit user codes only as upper-case XXXX-XXXX without vowels', () => {
      for (const user_code of ['bcdf-ghjk', 'BCDFGHJK', 'ABCD-EFGH', 'BCDF-GHJ1', 'BCDF-GHJKL']) {
        expectRefused('MachineAuthorizationStarted', { ...SAMPLES.MachineAuthorizationStarted, user_code });
      }
    });

    it('should accept typed user codes in any case, with or without the dash', () => {
      for (const code of ['BCDF-GHJK', 'bcdf-ghjk', 'bcdfGHJK', 'BcDf-gHjK']) {
        expect(validateMachineAuthorizationBody('MachineAuthorizationGetRequest', { code }).ok).toBe(true);
      }
      for (const code of ['BCDF--GHJK', 'BCD-FGHJK', 'AEIO-UAEI', ' BCDF-GHJK'])
        expectRefused('MachineAuthorizationGetRequest', { code });
    });

    it('should require integer seconds for expires_in and interval', () => {
      for (const [field, value] of [
        ['expires_in', 600.5],
        ['expires_in', 0],
        ['interval', -1],
        ['interval', 5.1],
      ] as const) {
        expectRefused('MachineAuthorizationStarted', { ...SAMPLES.MachineAuthorizationStarted, [field]: value });
      }
    });

    it('should require an ISO 8601 expires_at and a known decision', () => {
      expectRefused('MachineAuthorizationRecord', { ...SAMPLES.MachineAuthorizationRecord, expires_at: '22/11/2025' });
      expectRefused('MachineAuthorizationRecord', { ...SAMPLES.MachineAuthorizationRecord, decision: 'maybe' });
      expectRefused('MachineAuthorizationResolveResponse', {
        ...SAMPLES.MachineAuthorizationResolveResponse,
        decision: 'pending',
      });
    });

    it('should refuse a code that belongs to another model', () => {
      expectRefused('MachineAuthorizationPending', { code: 'authorization_denied' });
      expectRefused('MachineAuthorizationExpired', { code: 'authorization_denied' });
      expectRefused('MachineAuthorizationRefused', { code: 'authorization_pending' });
      expectRefused('MachineAuthorizationRefused', { code: 'something_new' });
    });

    it('should refuse any field in the cloud start body', () => {
      expectRefused('MachineAuthorizationCloudStartRequest', { machine_id: 'm' });
    });
  });

  describe('secrets', () => {
    const secretValues = [DEVICE_CODE, TOKEN, USER_CODE, 'bcdf ghjk secret', 'svcm_has space in it'];

    it('should never repeat a secret value in an error', () => {
      const cases: [MachineAuthorizationModelName, unknown][] = [
        ['MachineAuthorizationPollRequest', { device_code: `${DEVICE_CODE} `, machine_id: 1, machine_name: 2 }],
        [
          'MachineAuthorizationPollRequest',
          { device_code: DEVICE_CODE.repeat(20), machine_id: 'm', machine_name: 'n' },
        ],
        ['MachineAuthorizationApproved', { token: 'svcm_has space in it', org: '', api_url: 'ftp://x' }],
        ['MachineAuthorizationApproved', { token: TOKEN, org: 'acme', api_url: 'https://x', [TOKEN]: 1 }],
        ['MachineAuthorizationStarted', { ...SAMPLES.MachineAuthorizationStarted, user_code: 'bcdf ghjk secret' }],
        ['MachineAuthorizationResolveRequest', { code: 'bcdf ghjk secret', action: 'approve' }],
        ['MachineAuthorizationRefused', { code: TOKEN }],
      ];
      for (const [model, body] of cases) {
        const text = expectRefused(model, body).join('\n');
        for (const secret of secretValues) expect(text).not.toContain(secret);
      }
    });

    it('should not name a property whose key does not look like a name', () => {
      const errors = expectRefused('MachineAuthorizationApproved', {
        ...SAMPLES.MachineAuthorizationApproved,
        'a b': 1,
      });
      expect(errors).toContain('/ must NOT have additional property [unnamed]');
    });
  });
});

describe(parseMachineAuthorizationBody.name, () => {
  it('should parse and validate JSON text', () => {
    expect(parseMachineAuthorizationBody('MachineAuthorizationPending', '{"code":"authorization_pending"}')).toEqual({
      ok: true,
      value: { code: 'authorization_pending' },
    });
  });

  it('should refuse text that is not JSON without repeating it', () => {
    expect(parseMachineAuthorizationBody('MachineAuthorizationApproved', `{"token":"${TOKEN}"`)).toEqual({
      ok: false,
      errors: ['/ body is not valid JSON'],
    });
  });
});

describe(assertMachineAuthorizationBody.name, () => {
  it('should return the body when valid', () => {
    expect(assertMachineAuthorizationBody('MachineAuthorizationApproved', SAMPLES.MachineAuthorizationApproved)).toBe(
      SAMPLES.MachineAuthorizationApproved,
    );
  });

  it('should throw a validation error that carries no secret', () => {
    const body = { ...SAMPLES.MachineAuthorizationApproved, api_url: 42 };
    let thrown: unknown;
    try {
      assertMachineAuthorizationBody('MachineAuthorizationApproved', body);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(MachineAuthorizationValidationError);
    const error = thrown as MachineAuthorizationValidationError;
    expect(error.errors).toEqual(['/api_url must be string']);
    expect(`${error.message} ${error.stack} ${JSON.stringify(error)}`).not.toContain(TOKEN);
  });
});
