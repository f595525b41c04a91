import { discoverRoutes } from '@app/testing';

import { AppModule } from '../app.module';
import { parseConfig } from '../config/config';
import { checkRequestPart } from './input-limits';
import { controlCharacterProblem, MULTI_LINE_FIELDS, multiLineFieldsOf } from './text-fields';

function fieldsRefused(run: () => void): string[] {
  try {
    run();
  } catch (err) {
    return ((err as { extra: { fields: { field: string }[] } }).extra.fields ?? []).map((f) => f.field);
  }
  return [];
}

describe('text fields', () => {
  describe(controlCharacterProblem.name, () => {
    it.each([
      ['ESC', '\u001b[2J'],
      ['BEL', 'a\u0007'],
      ['newline', 'a\nb'],
      ['tab', 'a\tb'],
      ['CR', 'a\rb'],
      ['DEL', 'a\u007f'],
      ['C1 CSI', '\u009b2J'],
      ['line separator', 'a\u2028b'],
      ['right-to-left override', 'abc\u202etxt'],
      ['first strong isolate', '\u2068x\u2069'],
    ])('should refuse %s in a single-line field, naming the character', (_what, value) => {
      expect(controlCharacterProblem(value, false)).toMatch(/^must be one line .*\(found U\+[0-9A-F]{4}\)$/);
    });

    it('should accept ordinary text and bidi marks in a single-line field', () => {
      expect(controlCharacterProblem('Café 東京 🚀 שלום\u200f C:\\x1b', false)).toBeNull();
    });

    it('should accept newlines, tabs and bidi controls in a multi-line field', () => {
      expect(controlCharacterProblem('line 1\n\tline 2\u202e\n', true)).toBeNull();
    });

    it.each([
      ['ESC', 'a\n\u001b]0;pwned\u0007'],
      ['CR', 'a\r\nb'],
      ['DEL', '\u007f'],
      ['C1', '\u0085'],
    ])('should refuse %s in a multi-line field', (_what, value) => {
      expect(controlCharacterProblem(value, true)).toMatch(/other than newline and tab \(found U\+/);
    });
  });

  describe('the multi-line allow-list', () => {
    // Changing this list is a decision: a field added here may show newlines and tabs in other people's terminals.
    it('should list exactly these routes and fields', () => {
      const listed = Object.fromEntries(
        Object.entries(MULTI_LINE_FIELDS).map(([route, fields]) => [
          route,
          typeof fields === 'function' ? 'by path parameter' : [...fields],
        ]),
      );
      const item = ['body', 'spec', 'design_spec', 'technical_plan', 'worktree_plan', 'shepherd_log'];
      const items = [...item, 'shepherd_caveats', 'test_results', 'deploy_log'];
      const claim = ['mutation_intent', 'migration_strategy_justification', 'residual_risk_notes'];
      expect(listed).toEqual({
        'POST /v1/items': items,
        'PUT /v1/items/:ref/fields/:field': 'by path parameter',
        'PUT /v1/items/:ref/sections/:name': ['content'],
        'POST /v1/items/:ref/comments': ['body'],
        'POST /v1/items/:ref/resolve': ['resolution_comment'],
        'POST /v1/items/:ref/dependencies': ['rationale'],
        'POST /v1/items/:ref/db-claim': claim,
        'POST /v1/items/:ref/db-claim/negative': claim,
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
          ...items.map((f) => `items[].${f}`),
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
      });
    });

    it('should name only routes the router registers', () => {
      const routes = discoverRoutes(AppModule.forRoot(parseConfig({ SVC_HOME: '/nonexistent' }), 'postgres://unused'));
      const known = new Set(routes.map((r) => `${r.method} ${r.path}`));
      expect(Object.keys(MULTI_LINE_FIELDS).filter((route) => !known.has(route))).toEqual([]);
    });

    it("should make an item field's value multi-line only for the body and the structured fields", () => {
      const route = '/v1/items/:ref/fields/:field';
      expect([...multiLineFieldsOf('PUT', route, { field: 'spec' })]).toEqual(['value']);
      expect([...multiLineFieldsOf('PUT', route, { field: 'body' })]).toEqual(['value']);
      expect([...multiLineFieldsOf('PUT', route, { field: 'title' })]).toEqual([]);
    });
  });

  describe('the request walk', () => {
    it('should treat every string as single-line by default, in bodies, queries, paths and keys', () => {
      const refused = fieldsRefused(() => checkRequestPart({ title: 'a\u001b[2J', body: 'b\nc' }, 'request body'));
      expect(refused.sort()).toEqual(['body', 'title']);
      expect(fieldsRefused(() => checkRequestPart({ q: 'x\ny' }, 'query'))).toEqual(['q']);
      expect(fieldsRefused(() => checkRequestPart({ 'k\u001b': 1 }, 'request body'))).toEqual(['k\\u001b']);
    });

    it('should allow newlines and tabs at the listed paths only, whatever the array index', () => {
      const multiLine = multiLineFieldsOf('POST', '/v1/import', {});
      const document = {
        items: [
          { title: 'ok', body: 'a\n\tb', sections: [{ section_name: 'n', content: 'x\ny' }] },
          { title: 'two\nlines', body: 'esc \u001b[2J', sections: [{ section_name: 'n\tm', content: 'ok' }] },
        ],
      };
      expect(fieldsRefused(() => checkRequestPart(document, 'request body', '', multiLine)).sort()).toEqual([
        'items[1].body',
        'items[1].sections[0].section_name',
        'items[1].title',
      ]);
    });
  });
});
