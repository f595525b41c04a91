export type DbClaimState = 'declared' | 'none';
export type ReaderWriterRole = 'reader' | 'writer';
export type DbClaimJsonValue =
  string | number | boolean | null | DbClaimJsonValue[] | { [key: string]: DbClaimJsonValue };

export interface AffectedSurface {
  table: string;
  columns: string[];
}

export interface PreMergeReaderWriter {
  path: string;
  role: ReaderWriterRole;
}

export interface DbClaimPayload {
  state: DbClaimState;
  model_name?: string;
  mutation_intent?: string;
  migration_modules?: string[];
  migration_strategy?: string;
  migration_strategy_justification?: string;
  compatibility_class?: string;
  schema_kinds?: string[];
  affected_surfaces?: AffectedSurface[];
  pre_merge_readers_writers?: PreMergeReaderWriter[];
  invariants?: string[];
  rehearsal_commands?: string[];
  residual_risk_notes?: string;
}

// Stored in items.db_mutation_profile: what changes. reviewed_negative, validated_at and reason are written only by
// negativeClaim; a payload amendment replaces the whole profile and so drops them.
export interface DbMutationProfile {
  state: DbClaimState;
  model_name?: string;
  mutation_intent?: string;
  migration_modules?: string[];
  migration_strategy?: string;
  migration_strategy_justification?: string;
  schema_kinds?: string[];
  affected_surfaces?: AffectedSurface[];
  reviewed_negative?: true;
  validated_at?: string;
  reason?: string;
}

export interface DbCompatibilityAttestation {
  compatibility_class?: string;
  pre_merge_readers_writers?: PreMergeReaderWriter[];
  invariants?: string[];
  rehearsal_commands?: string[];
  residual_risk_notes?: string;
  frozen_at?: string;
  rehearsal_outcomes?: DbClaimJsonValue;
  class_escalations?: DbClaimJsonValue;
}

export interface StoredDbClaim {
  profile: DbMutationProfile;
  attestation: DbCompatibilityAttestation;
}

export type DbClaimErrorCode = 'db_claim_invalid' | 'db_claim_reserved_key' | 'db_claim_unknown_key';

export interface DbClaimValidationError {
  field: string;
  code: DbClaimErrorCode;
  message: string;
}

export type DbClaimValidationResult =
  { ok: true; claim: DbClaimPayload } | { ok: false; errors: DbClaimValidationError[] };

export const DB_CLAIM_STATES: readonly DbClaimState[] = ['declared', 'none'];
export const READER_WRITER_ROLES: readonly ReaderWriterRole[] = ['reader', 'writer'];
export const PROFILE_PAYLOAD_FIELDS = [
  'state',
  'model_name',
  'mutation_intent',
  'migration_modules',
  'migration_strategy',
  'migration_strategy_justification',
  'schema_kinds',
  'affected_surfaces',
] as const;
export const ATTESTATION_PAYLOAD_FIELDS = [
  'compatibility_class',
  'pre_merge_readers_writers',
  'invariants',
  'rehearsal_commands',
  'residual_risk_notes',
] as const;
export const DB_CLAIM_PAYLOAD_FIELDS = [...PROFILE_PAYLOAD_FIELDS, ...ATTESTATION_PAYLOAD_FIELDS] as const;
export const DB_CLAIM_RESERVED_KEYS = ['reviewed_negative', 'validated_at'] as const;
export const ATTESTATION_MANAGED_FIELDS = ['frozen_at', 'rehearsal_outcomes', 'class_escalations'] as const;
export const PRE_MERGE_SAFE_REQUIRED_FIELDS = [
  'pre_merge_readers_writers',
  'invariants',
  'rehearsal_commands',
  'residual_risk_notes',
] as const;
export const BARE_DEFAULT_PROFILE_TEXT = '{"state":"none"}';
export const EMPTY_ATTESTATION_TEXT = '{}';

const PAYLOAD_FIELD_SET: ReadonlySet<string> = new Set(DB_CLAIM_PAYLOAD_FIELDS);
const RESERVED_KEY_SET: ReadonlySet<string> = new Set(DB_CLAIM_RESERVED_KEYS);
const MANAGED_FIELD_SET: ReadonlySet<string> = new Set(ATTESTATION_MANAGED_FIELDS);
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

type JsonObject = Record<string, unknown>;

function hasOwn(obj: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

// Class instances (e.g. a DTO after class-transformer) pass; arrays, Dates, Maps and null do not.
function isObject(value: unknown): value is JsonObject {
  return Object.prototype.toString.call(value) === '[object Object]';
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

// Never JSON.stringify an arbitrary value: a bigint would throw.
function show(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : describe(value);
}

function ownValue(obj: JsonObject, key: string): unknown {
  return hasOwn(obj, key) ? obj[key] : undefined;
}

function assertTimestamp(now: string): void {
  if (!ISO_TIMESTAMP.test(now) || Number.isNaN(Date.parse(now))) {
    throw new RangeError(`now must be an ISO 8601 timestamp, got ${show(now)}`);
  }
}

class ErrorList {
  readonly items: DbClaimValidationError[] = [];

  invalid(field: string, message: string): void {
    this.items.push({ field, code: 'db_claim_invalid', message: `${field} ${message}` });
  }

  unknownKey(field: string, message: string): void {
    this.items.push({ field, code: 'db_claim_unknown_key', message });
  }
}

function checkKeys(obj: JsonObject, allowed: ReadonlySet<string>, prefix: string, errors: ErrorList): void {
  for (const key of Object.keys(obj)) {
    if (allowed.has(key)) continue;
    const field = `${prefix}${key}`;
    errors.unknownKey(field, `${JSON.stringify(field)} is not a field of the DB claim`);
  }
}

function readString(obj: JsonObject, key: string, errors: ErrorList, prefix = ''): string | undefined {
  if (!hasOwn(obj, key)) return undefined;
  const value = obj[key];
  if (isNonEmptyString(value)) return value;
  errors.invalid(`${prefix}${key}`, `must be a non-empty string, got ${describe(value)}`);
  return undefined;
}

function readStringArray(obj: JsonObject, key: string, errors: ErrorList, prefix = ''): string[] | undefined {
  if (!hasOwn(obj, key)) return undefined;
  const field = `${prefix}${key}`;
  const value = obj[key];
  if (!Array.isArray(value)) {
    errors.invalid(field, `must be an array of non-empty strings, got ${describe(value)}`);
    return undefined;
  }
  let ok = true;
  // Indexed loop, not forEach: holes in a sparse array must fail too.
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (!isNonEmptyString(item)) {
      errors.invalid(`${field}[${i}]`, `must be a non-empty string, got ${describe(item)}`);
      ok = false;
    }
  }
  return ok ? value.slice() : undefined;
}

function readObjectArray<T>(
  obj: JsonObject,
  key: string,
  errors: ErrorList,
  readItem: (item: JsonObject, prefix: string) => T | undefined,
): T[] | undefined {
  if (!hasOwn(obj, key)) return undefined;
  const value = obj[key];
  if (!Array.isArray(value)) {
    errors.invalid(key, `must be an array of objects, got ${describe(value)}`);
    return undefined;
  }
  const out: T[] = [];
  let ok = true;
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    const field = `${key}[${i}]`;
    if (!isObject(item)) {
      errors.invalid(field, `must be an object, got ${describe(item)}`);
      ok = false;
      continue;
    }
    const parsed = readItem(item, `${field}.`);
    if (parsed === undefined) ok = false;
    else out.push(parsed);
  }
  return ok ? out : undefined;
}

const SURFACE_KEYS: ReadonlySet<string> = new Set(['table', 'columns']);
const READER_WRITER_KEYS: ReadonlySet<string> = new Set(['path', 'role']);

function readSurface(errors: ErrorList) {
  return (item: JsonObject, prefix: string): AffectedSurface | undefined => {
    const before = errors.items.length;
    checkKeys(item, SURFACE_KEYS, prefix, errors);
    const table = readString(item, 'table', errors, prefix);
    const columns = readStringArray(item, 'columns', errors, prefix);
    if (!hasOwn(item, 'table')) errors.invalid(`${prefix}table`, 'is required');
    if (!hasOwn(item, 'columns')) errors.invalid(`${prefix}columns`, 'is required (may be an empty array)');
    if (errors.items.length > before || table === undefined || columns === undefined) return undefined;
    return { table, columns };
  };
}

function readReaderWriter(errors: ErrorList) {
  return (item: JsonObject, prefix: string): PreMergeReaderWriter | undefined => {
    const before = errors.items.length;
    checkKeys(item, READER_WRITER_KEYS, prefix, errors);
    const path = readString(item, 'path', errors, prefix);
    if (!hasOwn(item, 'path')) errors.invalid(`${prefix}path`, 'is required');
    const role = ownValue(item, 'role');
    if (!hasOwn(item, 'role')) errors.invalid(`${prefix}role`, 'is required (reader or writer)');
    else if (role !== 'reader' && role !== 'writer') {
      errors.invalid(`${prefix}role`, `must be reader or writer, got ${show(role)}`);
    }
    if (errors.items.length > before || path === undefined || (role !== 'reader' && role !== 'writer')) {
      return undefined;
    }
    return { path, role };
  };
}

export function validateDbClaimPayload(raw: unknown): DbClaimValidationResult {
  if (!isObject(raw)) {
    return {
      ok: false,
      errors: [
        { field: '$', code: 'db_claim_invalid', message: `the DB claim must be a JSON object, got ${describe(raw)}` },
      ],
    };
  }
  const errors = new ErrorList();

  for (const key of Object.keys(raw)) {
    if (PAYLOAD_FIELD_SET.has(key)) continue;
    if (RESERVED_KEY_SET.has(key)) {
      errors.items.push({
        field: key,
        code: 'db_claim_reserved_key',
        message: `${key} is workflow-managed; use the negative claim shortcut (--state none --reason <text>) instead`,
      });
    } else if (MANAGED_FIELD_SET.has(key)) {
      errors.unknownKey(key, `${key} is written by the workflow, not accepted in the DB claim payload`);
    } else {
      errors.unknownKey(key, `${JSON.stringify(key)} is not a field of the DB claim`);
    }
  }

  let state: DbClaimState | undefined;
  if (!hasOwn(raw, 'state')) errors.invalid('state', 'is required (declared or none)');
  else if (raw.state === 'declared' || raw.state === 'none') state = raw.state;
  else errors.invalid('state', `must be declared or none, got ${show(raw.state)}`);

  const claim: DbClaimPayload = {
    state: state ?? 'none',
    model_name: readString(raw, 'model_name', errors),
    mutation_intent: readString(raw, 'mutation_intent', errors),
    migration_modules: readStringArray(raw, 'migration_modules', errors),
    migration_strategy: readString(raw, 'migration_strategy', errors),
    migration_strategy_justification: readString(raw, 'migration_strategy_justification', errors),
    compatibility_class: readString(raw, 'compatibility_class', errors),
    schema_kinds: readStringArray(raw, 'schema_kinds', errors),
    affected_surfaces: readObjectArray(raw, 'affected_surfaces', errors, readSurface(errors)),
    pre_merge_readers_writers: readObjectArray(raw, 'pre_merge_readers_writers', errors, readReaderWriter(errors)),
    invariants: readStringArray(raw, 'invariants', errors),
    rehearsal_commands: readStringArray(raw, 'rehearsal_commands', errors),
    residual_risk_notes: readString(raw, 'residual_risk_notes', errors),
  };

  if (state === 'declared' && claim.mutation_intent === 'apply' && !hasOwn(raw, 'migration_strategy')) {
    errors.invalid('migration_strategy', 'is required when state = declared and mutation_intent = apply');
  }
  if (state === 'declared' && claim.compatibility_class === 'pre_merge_safe') {
    for (const field of PRE_MERGE_SAFE_REQUIRED_FIELDS) {
      const value = ownValue(raw, field);
      if (!hasOwn(raw, field)) {
        errors.invalid(field, 'is required when state = declared and compatibility_class = pre_merge_safe');
      } else if (Array.isArray(value) && value.length === 0) {
        errors.invalid(field, 'must not be empty when state = declared and compatibility_class = pre_merge_safe');
      }
    }
  }
  // The spec makes migration modules writers; listing one as a reader understates the risk.
  const modules = new Set(claim.migration_modules ?? []);
  claim.pre_merge_readers_writers?.forEach((entry, i) => {
    if (entry.role === 'reader' && modules.has(entry.path)) {
      errors.invalid(`pre_merge_readers_writers[${i}].role`, 'must be writer for a path listed in migration_modules');
    }
  });

  if (errors.items.length > 0) return { ok: false, errors: errors.items };
  return { ok: true, claim: dropUndefined(claim) };
}

function dropUndefined<T extends object>(obj: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(obj)) {
    if (value !== undefined) out[key] = value;
  }
  return out as T;
}

function pick<K extends keyof DbClaimPayload>(claim: DbClaimPayload, keys: readonly K[]): Pick<DbClaimPayload, K> {
  const out: Partial<Pick<DbClaimPayload, K>> = {};
  for (const key of keys) {
    if (hasOwn(claim, key) && claim[key] !== undefined) out[key] = claim[key];
  }
  return out as Pick<DbClaimPayload, K>;
}

function parseObject(text: string | null | undefined): JsonObject | null {
  if (text === null || text === undefined) return null;
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

// rehearsal_outcomes and class_escalations are evidence written by other workflow steps; an amendment must not
// erase it, so it is carried over verbatim from the stored attestation (a malformed one carries nothing).
function carriedEvidence(previousAttestation: string | null | undefined): DbCompatibilityAttestation {
  const previous = parseObject(previousAttestation);
  const out: DbCompatibilityAttestation = {};
  if (previous === null) return out;
  if (hasOwn(previous, 'rehearsal_outcomes')) out.rehearsal_outcomes = previous.rehearsal_outcomes as DbClaimJsonValue;
  if (hasOwn(previous, 'class_escalations')) out.class_escalations = previous.class_escalations as DbClaimJsonValue;
  return out;
}

export interface SplitClaimOptions {
  now: string;
  previousAttestation?: string | null;
}

export function splitClaim(claim: DbClaimPayload, options: SplitClaimOptions): StoredDbClaim {
  assertTimestamp(options.now);
  const profile: DbMutationProfile = pick(claim, PROFILE_PAYLOAD_FIELDS);
  const attestation: DbCompatibilityAttestation = {
    ...pick(claim, ATTESTATION_PAYLOAD_FIELDS),
    ...(claim.state === 'declared' ? { frozen_at: options.now } : {}),
    ...carriedEvidence(options.previousAttestation),
  };
  return { profile, attestation };
}

export function validateNegativeReason(reason: unknown): DbClaimValidationError[] {
  if (isNonEmptyString(reason)) return [];
  return [
    {
      field: 'reason',
      code: 'db_claim_invalid',
      message: `reason must be a non-empty string, got ${describe(reason)}`,
    },
  ];
}

export function negativeClaim(reason: string, now: string, previousAttestation?: string | null): StoredDbClaim {
  if (validateNegativeReason(reason).length > 0) throw new RangeError('reason must be a non-empty string');
  assertTimestamp(now);
  return {
    profile: { state: 'none', reviewed_negative: true, validated_at: now, reason },
    attestation: carriedEvidence(previousAttestation),
  };
}

export function serializeStoredClaim(stored: StoredDbClaim): { profileText: string; attestationText: string } {
  return { profileText: JSON.stringify(stored.profile), attestationText: JSON.stringify(stored.attestation) };
}

export type DbClaimHalf = 'db_mutation_profile' | 'db_compatibility_attestation';

export type ReviewedReason =
  'reviewed_negative' | 'declared' | 'bare_default' | 'reviewed_negative_not_true' | 'malformed_profile';

// Every field is present; null means absent, of the wrong type, or in a malformed half.
export interface DbClaimRecord {
  state: DbClaimState | null;
  model_name: string | null;
  mutation_intent: string | null;
  migration_modules: string[] | null;
  migration_strategy: string | null;
  migration_strategy_justification: string | null;
  schema_kinds: string[] | null;
  affected_surfaces: AffectedSurface[] | null;
  reviewed_negative: boolean | null;
  validated_at: string | null;
  reason: string | null;
  compatibility_class: string | null;
  pre_merge_readers_writers: PreMergeReaderWriter[] | null;
  invariants: string[] | null;
  rehearsal_commands: string[] | null;
  residual_risk_notes: string | null;
  frozen_at: string | null;
  rehearsal_outcomes: DbClaimJsonValue | null;
  class_escalations: DbClaimJsonValue | null;
}

export interface DbClaimReading {
  claim: DbClaimRecord;
  reviewed: boolean;
  reviewed_reason: ReviewedReason;
  malformed: boolean;
  malformed_halves: DbClaimHalf[];
}

const EMPTY: JsonObject = {};

function str(obj: JsonObject, key: string): string | null {
  const value = ownValue(obj, key);
  return typeof value === 'string' ? value : null;
}

function strArray(obj: JsonObject, key: string): string[] | null {
  const value = ownValue(obj, key);
  return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value.slice() : null;
}

function surfaces(obj: JsonObject): AffectedSurface[] | null {
  const value = ownValue(obj, 'affected_surfaces');
  if (!Array.isArray(value)) return null;
  const out: AffectedSurface[] = [];
  for (const item of value) {
    if (!isObject(item)) return null;
    const table = str(item, 'table');
    const columns = strArray(item, 'columns');
    if (table === null || columns === null) return null;
    out.push({ table, columns });
  }
  return out;
}

function readersWriters(obj: JsonObject): PreMergeReaderWriter[] | null {
  const value = ownValue(obj, 'pre_merge_readers_writers');
  if (!Array.isArray(value)) return null;
  const out: PreMergeReaderWriter[] = [];
  for (const item of value) {
    if (!isObject(item)) return null;
    const path = str(item, 'path');
    const role = ownValue(item, 'role');
    if (path === null || (role !== 'reader' && role !== 'writer')) return null;
    out.push({ path, role });
  }
  return out;
}

function json(obj: JsonObject, key: string): DbClaimJsonValue | null {
  return hasOwn(obj, key) ? (obj[key] as DbClaimJsonValue) : null;
}

export function readClaim(profileText: string | null, attestationText: string | null): DbClaimReading {
  // A null column reads as its default; an unparsable one is malformed.
  const parsedProfile = profileText === null ? { state: 'none' } : parseObject(profileText);
  const parsedAttestation = attestationText === null ? {} : parseObject(attestationText);
  const profileState = parsedProfile === null ? undefined : ownValue(parsedProfile, 'state');
  const validProfile = profileState === 'declared' || profileState === 'none';
  const profile = validProfile && parsedProfile !== null ? parsedProfile : EMPTY;
  const attestation = parsedAttestation ?? EMPTY;
  const malformedHalves: DbClaimHalf[] = [];
  if (!validProfile) malformedHalves.push('db_mutation_profile');
  if (parsedAttestation === null) malformedHalves.push('db_compatibility_attestation');

  const reviewedNegative = ownValue(profile, 'reviewed_negative');
  const claim: DbClaimRecord = {
    state: validProfile ? (profileState as DbClaimState) : null,
    model_name: str(profile, 'model_name'),
    mutation_intent: str(profile, 'mutation_intent'),
    migration_modules: strArray(profile, 'migration_modules'),
    migration_strategy: str(profile, 'migration_strategy'),
    migration_strategy_justification: str(profile, 'migration_strategy_justification'),
    schema_kinds: strArray(profile, 'schema_kinds'),
    affected_surfaces: surfaces(profile),
    reviewed_negative: typeof reviewedNegative === 'boolean' ? reviewedNegative : null,
    validated_at: str(profile, 'validated_at'),
    reason: str(profile, 'reason'),
    compatibility_class: str(attestation, 'compatibility_class'),
    pre_merge_readers_writers: readersWriters(attestation),
    invariants: strArray(attestation, 'invariants'),
    rehearsal_commands: strArray(attestation, 'rehearsal_commands'),
    residual_risk_notes: str(attestation, 'residual_risk_notes'),
    frozen_at: str(attestation, 'frozen_at'),
    rehearsal_outcomes: json(attestation, 'rehearsal_outcomes'),
    class_escalations: json(attestation, 'class_escalations'),
  };

  let reason: ReviewedReason;
  if (!validProfile) reason = 'malformed_profile';
  else if (profileState === 'declared') reason = 'declared';
  else if (!hasOwn(profile, 'reviewed_negative')) reason = 'bare_default';
  else if (reviewedNegative !== true) reason = 'reviewed_negative_not_true';
  else reason = 'reviewed_negative';

  return {
    claim,
    reviewed: reason === 'reviewed_negative',
    reviewed_reason: reason,
    malformed: malformedHalves.length > 0,
    malformed_halves: malformedHalves,
  };
}

export interface DbClaimSummary {
  state: DbClaimState | null;
  mutation_intent: string | null;
  compatibility_class: string | null;
  reviewed: boolean;
  frozen_at: string | null;
  malformed: boolean;
}

export function summarizeClaim(reading: DbClaimReading): DbClaimSummary {
  const { claim } = reading;
  return {
    state: claim.state,
    mutation_intent: claim.mutation_intent,
    compatibility_class: claim.compatibility_class,
    reviewed: reading.reviewed,
    // frozen_at on a state none row is inert, so the summary does not report it.
    frozen_at: claim.state === 'declared' ? claim.frozen_at : null,
    malformed: reading.malformed,
  };
}
