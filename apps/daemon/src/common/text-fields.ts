import { STRUCTURED_FIELDS } from '@app/contracts/backlog';

// Stored text reaches other people's terminals: every request string is single-line unless listed below.
// Single-line refuses C0, DEL, C1, U+2028/9 and bidi embeddings, overrides and isolates (they reorder a shown title);
// bidi marks stay for RTL names. Multi-line allows LF, tab and bidi controls.

// eslint-disable-next-line no-control-regex
const SINGLE_LINE_FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
// eslint-disable-next-line no-control-regex
const MULTI_LINE_FORBIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

function codePoint(char: string): string {
  return `U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}

export function controlCharacterProblem(value: string, multiLine: boolean): string | null {
  const found = (multiLine ? MULTI_LINE_FORBIDDEN : SINGLE_LINE_FORBIDDEN).exec(value);
  if (!found) return null;
  return multiLine
    ? `must not contain control characters other than newline and tab (found ${codePoint(found[0])})`
    : `must be one line without control characters or bidi overrides (found ${codePoint(found[0])})`;
}

export const TEXT_LIMIT = 512 * 1024;

export const MULTI_LINE_ITEM_FIELDS: readonly string[] = ['body', ...STRUCTURED_FIELDS];

export type RouteParams = Record<string, string | undefined>;

// 'METHOD /path' as the router declares it → body JSON paths (`[]`: any index).
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

export type MultiLineFields = ReadonlySet<string> | 'every';

// The forwarded request is checked again at its own /v1 route, so on the way in no string is held to one line.
export const FORWARDING_ROUTES: ReadonlySet<string> = new Set(['/api/orgs/:slug/v1/*']);

export function multiLineFieldsOf(method: string, route: string | undefined, params: RouteParams): MultiLineFields {
  if (route !== undefined && FORWARDING_ROUTES.has(route)) return 'every';
  const entry = route === undefined ? undefined : MULTI_LINE_FIELDS[`${method.toUpperCase()} ${route}`];
  if (entry === undefined) return new Set();
  return new Set(typeof entry === 'function' ? entry(params) : entry);
}
