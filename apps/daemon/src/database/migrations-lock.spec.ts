import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const lock = require('../../../../scripts/migrations-lock.js') as {
  checkMigrations: (root?: string) => string[];
  addNew: (root?: string) => string[];
  LOCK: string;
  DIR: string;
};

const ROOT = join(__dirname, '..', '..', '..', '..');
const FIRST = '1763784000000-InitialSchema.ts';

describe('migrations.sha256 (the migration guard)', () => {
  it('should list every migration file with its landed digest', () => {
    expect(lock.checkMigrations(ROOT)).toEqual([]);
  });

  describe('on a copy of the repository', () => {
    let root: string;
    beforeEach(() => {
      root = mkdtempSync(join(tmpdir(), 'svc-migrations-lock-'));
      cpSync(join(ROOT, lock.DIR), join(root, lock.DIR), { recursive: true });
      cpSync(join(ROOT, lock.LOCK), join(root, lock.LOCK));
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    it('should fail when a landed migration changes', () => {
      appendFileSync(join(root, lock.DIR, FIRST), '// edited\n');
      expect(lock.checkMigrations(root)).toEqual([expect.stringContaining(`${FIRST} changed after it landed`)]);
    });

    it('should fail when a landed migration disappears', () => {
      rmSync(join(root, lock.DIR, FIRST));
      expect(lock.checkMigrations(root)).toEqual([expect.stringContaining(`${FIRST} is listed but gone`)]);
    });

    it('should fail on a migration that is not listed, until --add lists it without touching the other lines', () => {
      const name = '1799999999999-Later.ts';
      writeFileSync(join(root, lock.DIR, name), 'export class Later1799999999999 {}\n');
      expect(lock.checkMigrations(root)).toEqual([expect.stringContaining(`${name} is not listed`)]);
      const before = readFileSync(join(root, lock.LOCK), 'utf8');
      expect(lock.addNew(root)).toEqual([name]);
      const after = readFileSync(join(root, lock.LOCK), 'utf8');
      expect(after.startsWith(before)).toBe(true);
      expect(lock.checkMigrations(root)).toEqual([]);
    });
  });
});
