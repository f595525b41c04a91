import { RULES } from '@app/core';
import { MCP_TOOLS } from '@app/client/mcp';
import { discoverRoutes } from '@app/testing/fuzz';

import { AppModule } from '../apps/daemon/src/app.module';
import { parseConfig } from '../apps/daemon/src/config/config';
import { WRITES } from '../apps/daemon/src/rulebook/writes.decorator';
import { MCP_CENSUS, WRITE_CENSUS } from './support/write-census.table';

// The census of write paths (issue 36): every route that is not a GET (found from the Nest router), every MCP tool
// and the import has a row naming the rules it passes and the record it leaves; a route names the same rules in its
// @Writes. The record half is checked where every route is called: test/authorization-matrix.e2e-spec.ts.
const routes = discoverRoutes(AppModule.forRoot(parseConfig({ SVC_HOME: '/nonexistent' }), 'postgres://unused'));
const writes = routes.filter((r) => r.method !== 'GET');
const name = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

describe('the census of write paths', () => {
  it('has a row for every route that writes, and none for a route that is gone', () => {
    const names = writes.map(name);
    expect(names.filter((n) => !WRITE_CENSUS[n])).toEqual([]);
    expect(Object.keys(WRITE_CENSUS).filter((n) => !names.includes(n))).toEqual([]);
  });

  it('finds each route naming, in @Writes, exactly the rules its row lists', () => {
    const differ = writes
      .map((r) => ({
        route: name(r),
        declared: (Reflect.getMetadata(WRITES, r.handler!) as string[] | undefined) ?? null,
        census: WRITE_CENSUS[name(r)]?.rules ?? null,
      }))
      .filter(
        (r) =>
          JSON.stringify(r.declared && [...r.declared].sort()) !== JSON.stringify(r.census && [...r.census].sort()),
      );
    expect(differ).toEqual([]);
  });

  it('names only rules of the rulebook, and says why a write leaves no change record', () => {
    for (const [route, row] of Object.entries(WRITE_CENSUS)) {
      expect({ route, unknown: row.rules.filter((rule) => !(RULES as readonly string[]).includes(rule)) }).toEqual({
        route,
        unknown: [],
      });
      if (row.record !== 'change') expect({ route, why: typeof row.why }).toEqual({ route, why: 'string' });
    }
  });

  it('has a row for every MCP tool, each naming routes of the census', () => {
    expect(MCP_TOOLS.filter((tool) => !MCP_CENSUS[tool])).toEqual([]);
    const unknown = Object.entries(MCP_CENSUS).flatMap(([tool, paths]) =>
      paths.filter((p) => !WRITE_CENSUS[p]).map((p) => `${tool}: ${p}`),
    );
    expect(unknown).toEqual([]);
  });
});
