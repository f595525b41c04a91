import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// `npm start` skips the build when dist/ is the build of the sources as they are (scripts/build-stamp.js): a fake
// checkout with a stamp written as scripts/build.js writes it, then each kind of change.
const REPO = join(__dirname, '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const stamp = require(join(REPO, 'scripts', 'build-stamp.js')) as {
  inputsHash(root: string): string;
  staleReason(root: string): string | null;
  writeStamp(root: string, hash: string): void;
};

function checkout(): string {
  const root = mkdtempSync(join(tmpdir(), 'svc-build-stamp-'));
  mkdirSync(join(root, 'apps', 'svc', 'src'), { recursive: true });
  mkdirSync(join(root, 'dist', 'apps', 'svc', 'src'), { recursive: true });
  writeFileSync(join(root, 'apps', 'svc', 'src', 'main.ts'), 'export const a = 1;\n');
  writeFileSync(join(root, 'apps', 'svc', 'src', 'main.spec.ts'), 'it("x", () => undefined);\n');
  writeFileSync(join(root, 'tsconfig.json'), '{}\n');
  writeFileSync(join(root, 'dist', 'apps', 'svc', 'src', 'main.js'), 'exports.a = 1;\n');
  const past = new Date(Date.now() - 60_000);
  utimesSync(join(root, 'dist', 'apps', 'svc', 'src', 'main.js'), past, past);
  stamp.writeStamp(root, stamp.inputsHash(root));
  return root;
}

describe('npm start: the build is skipped while dist/ is up to date', () => {
  it('is up to date right after a build, and after a touch or a test edit that changes no built source', () => {
    const root = checkout();
    expect(stamp.staleReason(root)).toBeNull();
    const future = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'apps', 'svc', 'src', 'main.ts'), future, future);
    writeFileSync(join(root, 'apps', 'svc', 'src', 'main.spec.ts'), 'it("y", () => undefined);\n');
    expect(stamp.staleReason(root)).toBeNull();
  });

  it('rebuilds without a stamp, after a source or config change, a new source, or a build:fast', () => {
    const fresh = mkdtempSync(join(tmpdir(), 'svc-build-stamp-none-'));
    expect(stamp.staleReason(fresh)).toMatch(/no complete build/);

    const edited = checkout();
    writeFileSync(join(edited, 'apps', 'svc', 'src', 'main.ts'), 'export const a = 2;\n');
    expect(stamp.staleReason(edited)).toMatch(/sources changed/);

    const config = checkout();
    writeFileSync(join(config, 'tsconfig.json'), '{"compilerOptions": {}}\n');
    expect(stamp.staleReason(config)).toMatch(/sources changed/);

    const added = checkout();
    writeFileSync(join(added, 'apps', 'svc', 'src', 'extra.ts'), 'export const b = 1;\n');
    expect(stamp.staleReason(added)).toMatch(/sources changed/);

    const fast = checkout();
    const future = new Date(Date.now() + 60_000);
    utimesSync(join(fast, 'dist', 'apps', 'svc', 'src', 'main.js'), future, future);
    expect(stamp.staleReason(fast)).toMatch(/written after/);
  });

  it('is what npm start runs before svc up, and the real build writes the stamp', async () => {
    const pkg = (await import(join(REPO, 'package.json'))) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toBe('(node scripts/build-stamp.js || npm run build) && node bin/svc.js up');
    // the script itself, in a copy: exit 1 (build) without a stamp, 0 with a matching one
    const copy = mkdtempSync(join(tmpdir(), 'svc-build-stamp-script-'));
    cpSync(join(REPO, 'scripts'), join(copy, 'scripts'), { recursive: true });
    mkdirSync(join(copy, 'dist'));
    const run = (cwd: string) =>
      new Promise<number>((resolve) =>
        execFile(process.execPath, [join(cwd, 'scripts', 'build-stamp.js')], (error) =>
          resolve(error ? Number(error.code ?? 1) : 0),
        ),
      );
    expect(await run(copy)).toBe(1);
    stamp.writeStamp(copy, stamp.inputsHash(copy));
    expect(await run(copy)).toBe(0);
  });
});
