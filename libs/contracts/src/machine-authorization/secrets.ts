import {
  MACHINE_AUTHORIZATION_SECRET_FIELDS,
  MachineAuthorizationModelName,
  MachineAuthorizationModels,
  MachineAuthorizationSecretField,
} from './models';

// Wire bodies stay plain objects holding raw strings (the wire needs them). Anything that is kept, printed or
// logged goes through protectMachineAuthorizationModel (secrets become SecretString) or redactSecrets (a copy
// with secret values replaced); the daemon's pino logger censors PINO_REDACT_PATHS.

export const REDACTED = '[redacted]';

// verification_uri_complete carries the user code in its path, so it is as secret as user_code.
export const SECRET_FIELDS: readonly string[] = ['device_code', 'user_code', 'token', 'verification_uri_complete'];

export const PINO_REDACT_PATHS: readonly string[] = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  'req.body.code',
  ...SECRET_FIELDS.flatMap((field) => [field, `*.${field}`, `*.*.${field}`]),
];

const INSPECT = Symbol.for('nodejs.util.inspect.custom');

// Every string form (String(), template literals, JSON.stringify, util.inspect, console.log) is '[redacted]';
// only reveal() returns the value, so sending it is always an explicit act.
export class SecretString {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  equals(other: SecretString | string): boolean {
    return this.#value === (typeof other === 'string' ? other : other.reveal());
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [Symbol.toPrimitive](): string {
    return REDACTED;
  }

  [INSPECT](): string {
    return REDACTED;
  }
}

export type Protected<T, K extends keyof T> = { [P in keyof T]: P extends K ? SecretString : T[P] };

export type ProtectedMachineAuthorizationModel<N extends MachineAuthorizationModelName> = Protected<
  MachineAuthorizationModels[N],
  MachineAuthorizationSecretField<N> & keyof MachineAuthorizationModels[N]
>;

export type Revealed<T> = { [P in keyof T]: T[P] extends SecretString ? string : T[P] };

export function protectSecrets<T extends object, K extends keyof T>(body: T, fields: readonly K[]): Protected<T, K> {
  const copy: Record<string, unknown> = Object.fromEntries(Object.entries(body));
  for (const field of fields) {
    const value = copy[field as string];
    if (typeof value === 'string') copy[field as string] = new SecretString(value);
  }
  return copy as Protected<T, K>;
}

export function protectMachineAuthorizationModel<N extends MachineAuthorizationModelName>(
  model: N,
  body: MachineAuthorizationModels[N],
): ProtectedMachineAuthorizationModel<N> {
  const fields = MACHINE_AUTHORIZATION_SECRET_FIELDS[model] as readonly (keyof MachineAuthorizationModels[N])[];
  return protectSecrets(body, fields) as ProtectedMachineAuthorizationModel<N>;
}

export function revealSecrets<T extends object>(body: T): Revealed<T> {
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) copy[key] = value instanceof SecretString ? value.reveal() : value;
  return copy as Revealed<T>;
}

// A deep copy safe to print or log: values under a secret key and every SecretString become '[redacted]'.
export function redactSecrets(value: unknown, fields: readonly string[] = SECRET_FIELDS): unknown {
  const secret = new Set(fields);
  const seen = new WeakSet<object>();
  const walk = (current: unknown): unknown => {
    if (current instanceof SecretString) return REDACTED;
    if (current === null || typeof current !== 'object' || current instanceof Date) return current;
    if (seen.has(current)) return '[circular]';
    seen.add(current);
    if (Array.isArray(current)) return current.map(walk);
    const copy: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(current)) {
      const redacted = secret.has(key) && child !== undefined && child !== null ? REDACTED : walk(child);
      Object.defineProperty(copy, key, { value: redacted, enumerable: true, writable: true, configurable: true });
    }
    return copy;
  };
  return walk(value);
}

export function redactMachineAuthorizationModel(model: MachineAuthorizationModelName, body: unknown): unknown {
  return redactSecrets(body, [...SECRET_FIELDS, ...MACHINE_AUTHORIZATION_SECRET_FIELDS[model]]);
}
