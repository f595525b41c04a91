import { Writable } from 'node:stream';
import { format, inspect } from 'node:util';

import pino from 'pino';

import { MachineAuthorizationStarted } from './models';
import {
  PINO_REDACT_PATHS,
  protectMachineAuthorizationModel,
  redactMachineAuthorizationModel,
  redactSecrets,
  REDACTED,
  revealSecrets,
  SECRET_FIELDS,
  SecretString,
} from './secrets';

const DEVICE_CODE = 'dc_Q2hhbmdlTWVQbGVhc2VEb250TG9nTWU';
const TOKEN = 'svcm_VGhpc0lzQVNlY3JldE1hY2hpbmVDcmVkZW50aWFs';
const USER_CODE = 'BCDF-GHJK';
const SECRETS = [DEVICE_CODE, TOKEN, USER_CODE];

const STARTED: MachineAuthorizationStarted = {
  device_code: DEVICE_CODE,
  user_code: USER_CODE,
  verification_uri: 'https://svc.example.com/machine-approval',
  verification_uri_complete: `https://svc.example.com/machine-approval/${USER_CODE}`,
  expires_in: 600,
  interval: 5,
};

function stringForms(value: unknown): string[] {
  return [
    String(value),
    `${value as string}`,
    JSON.stringify(value),
    JSON.stringify({ line: value }),
    inspect(value, { depth: 10, showHidden: true }),
    format('%s %o %O %j', value, value, value, value),
  ];
}

const expectNoSecret = (texts: string[]): void => {
  for (const text of texts) for (const secret of SECRETS) expect(text).not.toContain(secret);
};

describe(SecretString.name, () => {
  it('should show [redacted] in every string form', () => {
    const secret = new SecretString(TOKEN);
    for (const text of stringForms(secret)) expect(text).toContain(REDACTED);
    expectNoSecret(stringForms(secret));
    expect(Object.keys(secret)).toEqual([]);
  });

  it('should return the raw value only from reveal() and compare without revealing', () => {
    const secret = new SecretString(TOKEN);
    expect(secret.reveal()).toBe(TOKEN);
    expect(secret.equals(TOKEN)).toBe(true);
    expect(secret.equals(new SecretString('other'))).toBe(false);
  });
});

describe(protectMachineAuthorizationModel.name, () => {
  it('should keep the secrets of a started model out of every string form', () => {
    const protectedStarted = protectMachineAuthorizationModel('MachineAuthorizationStarted', STARTED);
    expectNoSecret(stringForms(protectedStarted));
    expect(protectedStarted.expires_in).toBe(600);
    expect(protectedStarted.verification_uri).toBe(STARTED.verification_uri);
  });

  it('should protect the token of an approved model and the code of a record', () => {
    const approved = protectMachineAuthorizationModel('MachineAuthorizationApproved', {
      token: TOKEN,
      org: 'acme',
      api_url: 'https://svc.example.com',
    });
    expectNoSecret(stringForms(approved));
    const record = protectMachineAuthorizationModel('MachineAuthorizationRecord', {
      code: USER_CODE,
      machine_id: 'm',
      machine_name: 'n',
      expires_at: '2025-11-22T04:17:00Z',
      decision: 'pending',
    });
    expectNoSecret(stringForms(record));
  });

  it('should give the wire body back through revealSecrets', () => {
    expect(revealSecrets(protectMachineAuthorizationModel('MachineAuthorizationStarted', STARTED))).toEqual(STARTED);
  });
});

describe(redactSecrets.name, () => {
  it('should replace secret values at any depth and in arrays', () => {
    const line = {
      msg: 'poll',
      body: { started: STARTED },
      list: [{ token: TOKEN }],
      wrapped: new SecretString(TOKEN),
    };
    const redacted = redactSecrets(line);
    expectNoSecret(stringForms(redacted));
    expect(redacted).toEqual({
      msg: 'poll',
      body: {
        started: Object.fromEntries(
          Object.entries(STARTED).map(([key, value]) => [key, SECRET_FIELDS.includes(key) ? REDACTED : value]),
        ),
      },
      list: [{ token: REDACTED }],
      wrapped: REDACTED,
    });
    expect(line.body.started.device_code).toBe(DEVICE_CODE);
  });

  it('should survive cycles and keep a __proto__ key as data', () => {
    const cyclic: Record<string, unknown> = { token: TOKEN };
    cyclic.self = cyclic;
    expect(redactSecrets(cyclic)).toEqual({ token: REDACTED, self: '[circular]' });
    const parsed: unknown = JSON.parse(`{"__proto__": {"token": "${TOKEN}"}}`);
    const redacted = redactSecrets(parsed) as object;
    expect(Object.getPrototypeOf(redacted)).toBe(Object.prototype);
    expectNoSecret([JSON.stringify(redacted)]);
  });

  it('should redact a model-specific secret such as the user code in code', () => {
    const redacted = redactMachineAuthorizationModel('MachineAuthorizationResolveRequest', {
      code: USER_CODE,
      action: 'approve',
    });
    expect(redacted).toEqual({ code: REDACTED, action: 'approve' });
  });
});

describe('PINO_REDACT_PATHS', () => {
  it('should keep headers and body secrets out of a pino log line', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const logger = pino({ redact: { paths: [...PINO_REDACT_PATHS], censor: REDACTED } }, sink);
    logger.info(
      {
        req: {
          headers: { authorization: `Bearer ${TOKEN}`, cookie: `sid=${TOKEN}`, 'x-csrf-token': TOKEN },
          body: { code: USER_CODE, device_code: DEVICE_CODE },
        },
        started: STARTED,
        result: { approved: { token: TOKEN, org: 'acme' } },
        token: TOKEN,
      },
      'machine authorization',
    );
    expect(lines).toHaveLength(1);
    expectNoSecret(lines);
    expect(lines[0]).toContain('"org":"acme"');
  });
});
