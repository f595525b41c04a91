import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020';

import {
  buildMachineAuthorizationSchema,
  MACHINE_AUTHORIZATION_MODEL_NAMES,
  MACHINE_AUTHORIZATION_SCHEMA_ID,
  MachineAuthorizationModelName,
  MachineAuthorizationModels,
} from './models';

export type MachineAuthorizationValidationResult<T> = { ok: true; value: T } | { ok: false; errors: string[] };

export class MachineAuthorizationValidationError extends Error {
  constructor(
    readonly model: MachineAuthorizationModelName,
    readonly errors: string[],
  ) {
    super(`invalid ${model}: ${errors.join('; ')}`);
  }
}

type Validators = { [N in MachineAuthorizationModelName]: ValidateFunction<MachineAuthorizationModels[N]> };

let validators: Validators | null = null;

// One Ajv instance holding the whole document, so every $defs entry keeps its neighbours for references.
function getValidators(): Validators {
  if (validators) return validators;
  // Required here, not at the top: ajv is a seventh of the command line's start-up, and most commands never validate
  // a machine-authorization answer.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Ajv2020 = (require('ajv/dist/2020') as typeof import('ajv/dist/2020')).default;
  const ajv = new Ajv2020({ strict: true, allErrors: true, validateFormats: false });
  ajv.addVocabulary(['x-contract-version', 'x-http', 'x-secret']);
  ajv.addSchema(buildMachineAuthorizationSchema());
  const compiled: Partial<Record<MachineAuthorizationModelName, ValidateFunction>> = {};
  for (const name of MACHINE_AUTHORIZATION_MODEL_NAMES) {
    const validate = ajv.getSchema(`${MACHINE_AUTHORIZATION_SCHEMA_ID}#/$defs/${name}`);
    if (!validate) throw new Error(`machine authorization schema has no $defs entry ${name}`);
    compiled[name] = validate;
  }
  validators = compiled as Validators;
  return validators;
}

// Wire names are lower snake_case; any other key (a pasted token, say) is caller text and is not repeated.
const SAFE_PROPERTY_NAME = /^(?:__proto__|[a-z][a-z0-9_]{0,63})$/;

// Only where and which rule: Ajv messages quote the schema, never the data.
function describeError(error: ErrorObject): string {
  const where = error.instancePath === '' ? '/' : error.instancePath;
  if (error.keyword === 'additionalProperties') {
    const name = String((error.params as { additionalProperty?: unknown }).additionalProperty ?? '');
    return `${where} must NOT have additional property ${SAFE_PROPERTY_NAME.test(name) ? `'${name}'` : '[unnamed]'}`;
  }
  return `${where} ${error.message ?? `failed ${error.keyword}`}`;
}

export function validateMachineAuthorizationBody<N extends MachineAuthorizationModelName>(
  model: N,
  body: unknown,
): MachineAuthorizationValidationResult<MachineAuthorizationModels[N]> {
  const validate = getValidators()[model] as ValidateFunction<MachineAuthorizationModels[N]>;
  if (validate(body)) return { ok: true, value: body };
  return { ok: false, errors: (validate.errors ?? []).map(describeError) };
}

export function parseMachineAuthorizationBody<N extends MachineAuthorizationModelName>(
  model: N,
  text: string,
): MachineAuthorizationValidationResult<MachineAuthorizationModels[N]> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, errors: ['/ body is not valid JSON'] };
  }
  return validateMachineAuthorizationBody(model, body);
}

export function assertMachineAuthorizationBody<N extends MachineAuthorizationModelName>(
  model: N,
  body: unknown,
): MachineAuthorizationModels[N] {
  const result = validateMachineAuthorizationBody(model, body);
  if (!result.ok) throw new MachineAuthorizationValidationError(model, result.errors);
  return result.value;
}
