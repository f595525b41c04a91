import { types } from 'pg';

// A statement's row template is built once, not at every execution.
//
// `pg` answers every execution of a prepared statement with its RowDescription, and its `Result.addFields` then builds
// the row template from scratch: a null-prototype object filled one column at a time (a dictionary-mode object in V8)
// and copied. A write's statements answer with the item's ~45 columns: a CPU profile of the daemon at 100k items under
// 32 priority writers put 5 % of its busy thread in `addFields`, nearly all of it in those two lines.
//
// Here the template is kept per list of column names, so an execution pays one pass over the names to find it. It is
// built by `Object.fromEntries`, so it is in fast mode and has an own data property for every name (`__proto__`
// included, as in `pg`'s template); `parseRow` copies it per row as before. The type parsers are looked up at every
// execution, as `pg` does: a client's `setTypeParser` takes effect at once. Installed for the daemon's pool only
// (`dataSourceOptions(…, prepared)`).

interface FieldDescription {
  name: string;
  dataTypeID: number;
  format?: string;
}

interface TypeSource {
  getTypeParser(oid: number, format: string): unknown;
}

// `pg`'s Result, as far as this replacement reads and writes it (lib/result.js, pg 8.23)
interface ResultInternals {
  fields: FieldDescription[];
  _parsers: unknown[] | undefined;
  _types: TypeSource | undefined;
  _prebuiltEmptyResultObject: Record<string, null> | null;
}

// a bound on the templates kept: the daemon's statements are a few hundred at most
const TEMPLATES_KEPT = 1024;

const templates = new Map<string, Record<string, null>>();

function templateOf(fields: readonly FieldDescription[]): Record<string, null> {
  let key = '';
  for (let i = 0; i < fields.length; i++) key += `${fields[i].name}\u0000`;
  let template = templates.get(key);
  if (!template) {
    if (templates.size >= TEMPLATES_KEPT) templates.clear();
    template = Object.fromEntries(fields.map((field) => [field.name, null])) as Record<string, null>;
    templates.set(key, template);
  }
  return template;
}

function addFields(this: ResultInternals, fields: FieldDescription[], fallback: TypeSource): void {
  this.fields = fields;
  const source = this._types ?? fallback;
  if (fields.length > 0) {
    const parsers = new Array<unknown>(fields.length);
    for (let i = 0; i < fields.length; i++) {
      parsers[i] = source.getTypeParser(fields[i].dataTypeID, fields[i].format || 'text');
    }
    this._parsers = parsers;
  }
  this._prebuiltEmptyResultObject = templateOf(fields);
}

let installed = false;

// Replaces `pg`'s `Result.prototype.addFields` once in the process. Refused (an error) if `pg`'s Result no longer has
// the shape this replaces, so an upgrade that changes it fails the daemon's tests rather than parsing rows wrong.
export function installRowTemplates(): void {
  if (installed) return;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Result = require('pg/lib/result') as new (rowMode?: string, types?: TypeSource) => ResultInternals;
  const probe = new Result(undefined, undefined) as ResultInternals & { addFields?: unknown; parseRow?: unknown };
  const shaped =
    typeof probe.addFields === 'function' &&
    typeof probe.parseRow === 'function' &&
    '_parsers' in probe &&
    '_types' in probe &&
    '_prebuiltEmptyResultObject' in probe;
  if (!shaped) throw new Error("pg's Result is not the shape row-templates.ts replaces: review it for this pg version");
  (Result.prototype as unknown as { addFields: (fields: FieldDescription[]) => void }).addFields = function (
    this: ResultInternals,
    fields: FieldDescription[],
  ) {
    addFields.call(this, fields, types as TypeSource);
  };
  installed = true;
}
