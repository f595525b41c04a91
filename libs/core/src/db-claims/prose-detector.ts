import { readClaim } from './db-claim';

export interface GovernedDbWorkRule {
  id: string;
  description: string;
  pattern: RegExp;
}

export interface GovernedDbWorkMatch {
  matched: boolean;
  excerpt: string | null;
  rule: string | null;
}

export interface ProseTexts {
  spec?: string | null;
  body?: string | null;
}

export interface ProseMismatch {
  code: 'GATE_DB_CLAIM_PROSE_MISMATCH';
  message: string;
  recovery: 'run db-claim-amend';
  trigger: { field: 'spec' | 'body'; excerpt: string; rule: string };
}

export const GATE_DB_CLAIM_PROSE_MISMATCH = 'GATE_DB_CLAIM_PROSE_MISMATCH';
export const EXCERPT_CONTEXT_CHARS = 40;

// A column or table named in a UI or docs context ("new column in the frontier view") is not DB work.
const NOT_UI = String.raw`(?!\s+(?:in|on|to|of|from|for)\s+(?:the\s+|a\s+)?(?:[\w-]+\s+)?(?:view|tui|ui|screen|panel|pane|grid|dashboard|widget|output|report|readme|docs?|documentation|markdown|help|csv))`;
const WORD = String.raw`(?:[\w-]+\s+)?`;
const TWO_WORDS = String.raw`(?:[\w-]+\s+){0,2}`;
const NON_DB_MIGRATION_QUALIFIER = String.raw`(?<!\b(?:bird|birds|animal|cloud|framework|library|dependency|dependencies|package|node|nodejs|react|angular|vue|typescript|javascript|css|dns|ci|infra|infrastructure|platform|repo|repository|ui|api|email|domain|config)[\s-])`;
const NON_DB_SCHEMA_QUALIFIER = String.raw`(?<!\b(?:json|graphql|openapi|swagger|zod|yaml|config|configuration|avro|protobuf|event|validation|api|xml)[\s-])`;

function rule(id: string, description: string, source: string): GovernedDbWorkRule {
  return { id, description, pattern: new RegExp(source, 'gi') };
}

// Order breaks ties between matches that start at the same offset: specific rules first, the bare word last.
export const GOVERNED_DB_WORK_RULES: readonly GovernedDbWorkRule[] = [
  rule(
    'sql_table_ddl',
    'ALTER/CREATE/DROP/TRUNCATE/RENAME TABLE (not a UI table widget)',
    String.raw`\b(?:alter|create|drop|truncate|rename)\s+table\b(?!\s+(?:widget|component|view|layout|row|cell|header|renderer|of\s+contents))`,
  ),
  rule(
    'sql_index_ddl',
    'CREATE/DROP INDEX, or adding an index on a table (not an index.ts file)',
    String.raw`\b(?:create|drop)\s+(?:unique\s+)?index\b(?!\.\w)|\b(?:add|create|drop)(?:s|ed|ing)?\s+(?:an?\s+|the\s+)?(?:new\s+)?(?:unique\s+|partial\s+|composite\s+)?index(?:es)?\s+on\b`,
  ),
  rule(
    'sql_other_ddl',
    'ALTER TYPE/SEQUENCE, CREATE/DROP/REFRESH MATERIALIZED VIEW, SET/DROP NOT NULL',
    String.raw`\balter\s+(?:type|sequence)\b|\b(?:create|drop|refresh|alter)\s+materialized\s+view\b|\b(?:set|drop)\s+not\s+null\b`,
  ),
  rule(
    'constraint_change',
    'adding or dropping a foreign key, unique/check constraint or primary key',
    String.raw`\b(?:add|drop|create)(?:s|ed|ing)?\s+(?:an?\s+|the\s+)?(?:new\s+)?(?:foreign\s+key|unique\s+constraint|check\s+constraint|constraint|primary\s+key)\b`,
  ),
  rule(
    'add_column',
    'add (a/the/new) (up to two words) column(s)',
    String.raw`\badd(?:s|ed|ing)?\s+(?:an?\s+|the\s+|\d+\s+|two\s+|three\s+)?(?:new\s+)?${TWO_WORDS}columns?\b${NOT_UI}`,
  ),
  rule('new_column', 'new (<word>) column(s)', String.raw`\bnew\s+${WORD}columns?\b${NOT_UI}`),
  rule(
    'drop_column',
    'drop or remove a column',
    String.raw`\b(?:drop|drops|dropped|dropping|remove|removes|removed|removing)\s+(?:the\s+|a\s+)?${WORD}columns?\b${NOT_UI}`,
  ),
  rule(
    'rename_column',
    'rename a column',
    String.raw`\brenam(?:e|es|ed|ing)\s+(?:the\s+|a\s+)?${WORD}columns?\b${NOT_UI}`,
  ),
  rule(
    'alter_column',
    'ALTER COLUMN, or changing a column type/default',
    String.raw`\balter\s+column\b|\b(?:change|changes|changed|changing|modify|modifies|modifying)\s+(?:the\s+)?${WORD}column(?:'s)?\s+(?:type|default|nullability)\b`,
  ),
  rule(
    'new_table',
    'new (db/database/sql/postgres) table(s)',
    String.raw`\bnew\s+(?:db\s+|database\s+|sql\s+|postgres(?:ql)?\s+|join\s+)?tables?\b(?!\s+(?:widget|component|view|layout|row|cell|header|renderer|of\b))${NOT_UI}`,
  ),
  rule(
    'schema_change',
    'schema change/migration/update, or changing the database schema (not JSON/GraphQL/config schemas)',
    String.raw`${NON_DB_SCHEMA_QUALIFIER}\b(?:(?:db|database|sql|table|postgres(?:ql)?)\s+)?schema\s+(?:changes?|migrations?|updates?|modifications?|alterations?|evolution)\b|\b(?:change|changes|changing|alter|alters|altering|modify|modifies|modifying|update|updates|updating)\s+(?:to\s+)?(?:the\s+)?(?:db|database|sql|table|postgres(?:ql)?)\s+schema\b|\bchanges?\s+to\s+the\s+(?:db\s+|database\s+)?schema\b`,
  ),
  rule('data_migration', 'data migration(s)', String.raw`\bdata\s+migrations?\b`),
  rule('backfill', 'backfill, back-fill', String.raw`\bback-?fill(?:s|ed|ing)?\b`),
  rule(
    'migrate_database',
    'migrate the db/database/schema/table/data/rows/records',
    String.raw`\bmigrat(?:e|es|ed|ing)\s+(?:the\s+|our\s+|existing\s+|all\s+)*(?:db|database|schema|tables?|data|rows|records|postgres(?:ql)?)\b`,
  ),
  rule(
    'migration_command',
    'db:migrate, typeorm migration:run/generate, knex migrate:latest, prisma migrate, alembic, flyway, rake db:',
    String.raw`\b(?:db|database|schema):migrate\b|\bmigration:(?:run|generate|create|revert|show)\b|\bmigrate:(?:latest|make|rollback|up|down|status|fresh|reset)\b|\bprisma\s+(?:migrate|db\s+push)\b|\bnpm\s+run\s+(?:typeorm|migrate|migration)\b|\balembic\s+(?:upgrade|downgrade|revision)\b|\bflyway\s+migrate\b|\bmanage\.py\s+(?:migrate|makemigrations)\b|\brake\s+db:\w+`,
  ),
  rule(
    'migration_code',
    'TypeORM MigrationInterface/queryRunner DDL, knex.schema, schema.prisma, createTable()/addColumn() calls',
    String.raw`\bMigrationInterface\b|\bqueryRunner\.(?:query|addColumns?|dropColumns?|changeColumn|renameColumn|createTable|dropTable|createIndex|dropIndex|createForeignKey|addForeignKey)\b|\bknex\.schema\b|\bschema\.prisma\b|\b(?:createTable|alterTable|dropTable|addColumn|dropColumn|renameColumn|createIndex)\s*\(`,
  ),
  rule(
    'migration_file',
    'a migrations/ path, a TypeORM timestamped migration (1698693294632-AddActivity) or a Prisma migration folder',
    String.raw`\bmigrations?\/[\w./-]*|\b\d{13}-[A-Z]\w*\b|\b\d{14}_[a-z]\w*\b`,
  ),
  rule(
    'entity_decorator',
    'a TypeORM entity/column/index/relation decorator call',
    String.raw`(?<![\w@])@(?:Entity|Column|PrimaryColumn|PrimaryGeneratedColumn|CreateDateColumn|UpdateDateColumn|DeleteDateColumn|Index|Unique|Check|ManyToOne|OneToMany|OneToOne|ManyToMany|JoinColumn|JoinTable)\s*\(`,
  ),
  rule(
    'migration',
    'migration(s), except bird/framework/library/cloud/... migrations, migration-free, migration guides, migrations to a tool',
    String.raw`${NON_DB_MIGRATION_QUALIFIER}\bmigrations?\b(?![\s-]?free\b)(?!\s+guides?\b)(?!\s+(?:to|from)\s+(?:node|react|angular|vue|typescript|esm|commonjs|jest|vitest|eslint|prettier|github|gitlab|aws|gcp|azure|pnpm|yarn|npm)\b)`,
  ),
];

const CLAUSE_BOUNDARY = /[.!?;:\n]|\b(?:but|however|although|though|whereas|except|yet|unless)\b/gi;
const NEGATORS = new Set([
  'no',
  'not',
  'without',
  'never',
  'none',
  'nor',
  'zero',
  'cannot',
  'avoid',
  'avoids',
  'avoiding',
]);
// Words a negation reaches across: "no (new) migrations, schema changes or backfills", "does not require a migration".
const GLUE_WORDS =
  'a an the any new additional extra further more other or and to be is are was were will would should ' +
  'shall must can of for this that it we i you they there here need needs needed require requires ' +
  'required requiring involve involves involving include includes introduce introduces add adds adding ' +
  'run runs running write writing do does did have has make makes perform touch touches change changes ' +
  'db database sql schema data table tables column columns migration migrations index indexes backfill ' +
  'backfills kind sort expected planned';
const GLUE = new Set(GLUE_WORDS.split(' '));
const MAX_NEGATION_REACH = 8;
// "Out of scope: migrations, backfills" lists what will not be done.
const OUT_OF_SCOPE_LABEL = /\b(?:out\s+of\s+scope|not\s+in\s+scope|non-?goals?)\s*:\s*$/i;
const NEGATED_AFTER =
  /^[\s:=\-–—()[\]]*(?:(?:is|are|was|were|will\s+be|be|currently|also|here)\s+)*(?:(?:not|never)\s+(?:needed|required|necessary|planned|expected|involved|included|in\s+scope|applicable)\b|unnecessary\b|unneeded\b|needless\b|out\s+of\s+scope\b|none\b|n\/a\b|(?:needed|required)\s*[:?]\s*no\b)/i;

function isNegator(token: string): boolean {
  return NEGATORS.has(token) || /n['’]t$/.test(token);
}

// A negation applies when it opens the match's clause phrase, reached only through glue words; a comma continues a
// list only after a glue word, so "No, we add a migration" is not negated.
function isNegated(text: string, start: number, end: number): boolean {
  if (NEGATED_AFTER.test(text.slice(end, end + 80))) return true;
  const before = text.slice(Math.max(0, start - 160), start);
  let clauseStart = 0;
  for (const boundary of before.matchAll(CLAUSE_BOUNDARY)) clauseStart = (boundary.index ?? 0) + boundary[0].length;
  const tokens =
    before
      .slice(clauseStart)
      .toLowerCase()
      .match(/[a-z0-9'’]+|,/g) ?? [];
  let words = 0;
  for (let i = tokens.length - 1; i >= 0; i--) {
    const token = tokens[i];
    if (token === ',') {
      const previous = tokens[i - 1];
      if (previous === undefined || !GLUE.has(previous)) return false;
      continue;
    }
    if (isNegator(token)) return true;
    if (!GLUE.has(token) || ++words > MAX_NEGATION_REACH) return false;
  }
  return OUT_OF_SCOPE_LABEL.test(before.slice(0, clauseStart));
}

function excerptAround(text: string, start: number, end: number): string {
  let from = Math.max(0, start - EXCERPT_CONTEXT_CHARS);
  let to = Math.min(text.length, end + EXCERPT_CONTEXT_CHARS);
  // Do not cut a surrogate pair in half.
  if (from > 0 && /[\uDC00-\uDFFF]/.test(text.charAt(from))) from--;
  if (to < text.length && /[\uD800-\uDBFF]/.test(text.charAt(to - 1))) to++;
  const body = text.slice(from, to).replace(/\s+/g, ' ').trim();
  return `${from > 0 ? '...' : ''}${body}${to < text.length ? '...' : ''}`;
}

export function detectGovernedDbWork(text: string): GovernedDbWorkMatch {
  let best: { start: number; end: number; rule: string } | null = null;
  for (const { id, pattern } of GOVERNED_DB_WORK_RULES) {
    for (const match of text.matchAll(pattern)) {
      const start = match.index ?? 0;
      if (best !== null && start >= best.start) break;
      const end = start + match[0].length;
      if (isNegated(text, start, end)) continue;
      best = { start, end, rule: id };
      break;
    }
  }
  if (best === null) return { matched: false, excerpt: null, rule: null };
  return { matched: true, excerpt: excerptAround(text, best.start, best.end), rule: best.rule };
}

export function checkProseMismatch(texts: ProseTexts, profileText: string | null): ProseMismatch | null {
  const reading = readClaim(profileText, null);
  // A declared claim already governs the work; anything else short of a reviewed negative is the bare default.
  if (reading.reviewed || reading.claim.state === 'declared') return null;
  for (const field of ['spec', 'body'] as const) {
    const text = texts[field];
    if (typeof text !== 'string' || text.length === 0) continue;
    const found = detectGovernedDbWork(text);
    if (!found.matched || found.excerpt === null || found.rule === null) continue;
    return {
      code: GATE_DB_CLAIM_PROSE_MISMATCH,
      message:
        `The ${field} declares governed DB work (${found.rule}: "${found.excerpt}") but the stored DB claim is the ` +
        'bare default (state none without a reviewed-negative attestation). Run db-claim-amend to declare the claim, ' +
        'or db-claim-amend --state none --reason <text> if there is no DB work; rewording the text is not the fix.',
      recovery: 'run db-claim-amend',
      trigger: { field, excerpt: found.excerpt, rule: found.rule },
    };
  }
  return null;
}
