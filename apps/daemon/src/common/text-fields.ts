import { STRUCTURED_FIELDS } from '@app/contracts/backlog';

// Stored text reaches other people's terminals (svc tables, the TUI, logs piped to a pager). Every string a request
// carries — body, query, path, object keys — is single-line unless its route and JSON path are listed below, so a
// new field is safe by default.
//
// Single-line: no C0 control (newline, tab and CR included), no DEL, no C1 control, no line or paragraph separator
// (U+2028, U+2029), no bidi embedding, override or isolate (U+202A–U+202E, U+2066–U+2069: they reorder the rest of
// the line a title is shown on). The bidi marks (U+200E, U+200F, U+061C) are allowed: right-to-left names need them.
// Multi-line: newline and tab allowed, every other C0 control (CR included: send LF line ends), DEL and C1 refused;
// bidi controls are allowed (right-to-left documents use them; the command line shows them escaped).

// eslint-disable-next-line no-control-regex
const SINGLE_LINE_FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
// eslint-disable-next-line no-control-regex
const MULTI_LINE_FORBIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

function codePoint(char: string): string {
  return `U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}

// Why this text may not be stored in a field of its kind, naming the first offending character; null when it may.
export function controlCharacterProblem(value: string, multiLine: boolean): string | null {
  const found = (multiLine ? MULTI_LINE_FORBIDDEN : SINGLE_LINE_FORBIDDEN).exec(value);
  if (!found) return null;
  return multiLine
    ? `must not contain control characters other than newline and tab (found ${codePoint(found[0])})`
    : `must be one line without control characters or bidi overrides (found ${codePoint(found[0])})`;
}

// The longest text an item's body, a structured field or a comment may hold.
export const TEXT_LIMIT = 512 * 1024;

// The item fields holding prose: the body and the structured fields (spec, design_spec, ...).
export const MULTI_LINE_ITEM_FIELDS: readonly string[] = ['body', ...STRUCTURED_FIELDS];

// Route parameters, for the one route whose body field is prose or not depending on the path (items' fields).
export type RouteParams = Record<string, string | undefined>;

// The multi-line fields of each route: 'METHOD /path' as the router declares it → JSON paths in the body, `[]`
// standing for any array index. A function decides from the path parameters.
export const MULTI_LINE_FIELDS: Readonly<
  Record<string, readonly string[] | ((params: RouteParams) => readonly string[])>
> = {
  'POST /v1/items': MULTI_LINE_ITEM_FIELDS,
  'PUT /v1/items/:ref/fields/:field': (params) =>
    MULTI_LINE_ITEM_FIELDS.includes(params.field ?? '') ? ['value'] : [],
  'PUT /v1/items/:ref/sections/:name': ['content'],
  'POST /v1/items/:ref/resolve': ['resolution_comment'],
  'POST /v1/items/:ref/comments': ['body'],
  'POST /v1/items/:ref/dependencies': ['rationale'],
  'POST /v1/items/:ref/db-claim': ['mutation_intent', 'migration_strategy_justification', 'residual_risk_notes'],
  'POST /v1/items/:ref/db-claim/negative': [
    'mutation_intent',
    'migration_strategy_justification',
    'residual_risk_notes',
  ],
  'POST /v1/epics/:ref/tasks': ['body'],
  'PATCH /v1/epics/:ref/tasks/:num': ['body'],
  'POST /v1/epics/:ref/tasks/:num/notes': ['body'],
  'POST /v1/records/shepherd-verdicts': ['caveats'],
  'POST /v1/records/caveat-dispositions': ['caveat_text', 'resolution_details'],
  'POST /v1/records/ouroboros': ['context', 'body'],
  'POST /v1/deployments/flows': ['done_description'],
  'POST /v1/deployments/runs': ['qa_summary'],
  'PATCH /v1/deployments/runs/:id': ['qa_summary'],
  'POST /v1/workflows': ['description'],
  'POST /v1/import': [
    ...MULTI_LINE_ITEM_FIELDS.map((f) => `items[].${f}`),
    'items[].sections[].content',
    'items[].resolution_comment',
    'items[].db_mutation_profile',
    'items[].db_compatibility_attestation',
    'dependencies[].rationale',
    'epics[].tasks[].body',
    'epics[].notes[].body',
    'records.shepherd_verdicts[].caveats',
    'records.caveat_dispositions[].caveat_text',
    'records.caveat_dispositions[].resolution_details',
    'deployments.flows[].done_description',
    'deployments.runs[].qa_summary',
    'workflows[].versions[].definition.description',
  ],
};

// The JSON paths of a body whose strings may hold newlines and tabs; 'every': any of them.
export type MultiLineFields = ReadonlySet<string> | 'every';

// The hosted forward (/api/orgs/<slug>/v1/... → /v1/...): the forwarded request reaches its own /v1 route, where the
// edge checks it again with that route's multi-line fields. On the way in no string is held to one line, so the
// hosted path accepts exactly the bodies /v1 accepts (what is never storable, NUL, CR, other controls, stays refused
// at both).
export const FORWARDING_ROUTES: ReadonlySet<string> = new Set(['/api/orgs/:slug/v1/*']);

// The multi-line JSON paths of one request (empty: every string is single-line).
export function multiLineFieldsOf(method: string, route: string | undefined, params: RouteParams): MultiLineFields {
  if (route !== undefined && FORWARDING_ROUTES.has(route)) return 'every';
  const entry = route === undefined ? undefined : MULTI_LINE_FIELDS[`${method.toUpperCase()} ${route}`];
  if (entry === undefined) return new Set();
  return new Set(typeof entry === 'function' ? entry(params) : entry);
}
