import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// package.json takes no comments, so the note at the pin lives here: binary-copy.ts reads COPY data by taking the
// socket from pg's Connection parser and the pool from TypeORM's driver (neither a public API). `pg` and `typeorm`
// are pinned to exact versions; move a pin only with apps/daemon/test/integration/binary-copy.integration-spec.ts
// green on the new version (`npx jest apps/daemon/test/integration/binary-copy.integration-spec.ts`).
const GUARDED_BY = 'apps/daemon/test/integration/binary-copy.integration-spec.ts';
const PINNED = ['pg', 'typeorm'];

describe('dependency pins guarding the binary COPY hook', () => {
  const root = join(__dirname, '../../../..');
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };

  it.each(PINNED)(`%s is pinned to an exact version (guarded by ${GUARDED_BY})`, (name) => {
    expect(manifest.dependencies[name]).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('the guarding integration spec exists', () => {
    expect(() => readFileSync(join(root, GUARDED_BY))).not.toThrow();
  });
});
