import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { Command, Option } from 'commander';

import type { BackupResult, RestoreResult, VerifyResult } from '@app/database';

import { action, CliError, output, printKeyValues } from '../output';

// Loaded from the build at run time (it needs the daemon's migrations), so no daemon need run.
interface SnapshotTool {
  backup: (
    file: string,
    env: NodeJS.ProcessEnv,
    say: (text: string) => void,
  ) => Promise<BackupResult & { server_secret: string | null }>;
  restore: (
    file: string,
    options: { force: boolean },
    env: NodeJS.ProcessEnv,
    say: (text: string) => void,
  ) => Promise<RestoreResult>;
  verify: (file: string) => Promise<VerifyResult>;
}

export function snapshotToolEntry(): string {
  return join(__dirname, '..', '..', '..', 'daemon', 'src', 'database', 'snapshot-tool.js');
}

function loadTool(): SnapshotTool {
  const entry = snapshotToolEntry();
  if (!existsSync(entry)) throw new CliError('daemon_missing', `${entry} not found; run npm run build first`);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(entry) as SnapshotTool;
}

async function run<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (err instanceof Error && err.name === 'SnapshotError' && typeof code === 'string') {
      throw new CliError(code, err.message);
    }
    throw err;
  }
}

const totalRows = (rows: Record<string, number>) => Object.values(rows).reduce((a, b) => a + b, 0);
const say = (text: string) => process.stderr.write(`${text}\n`);

export function registerBackupCommands(program: Command): void {
  program
    .command('backup')
    .description(
      'write a consistent snapshot of the whole database (SVC_DATABASE_URL, else the embedded one of SVC_HOME) ' +
        'to <file>, while the daemon keeps serving',
    )
    .argument('<file>', 'the snapshot file to write (gzip; replaced only once complete)')
    .action(
      action(async (file: string, _options: unknown, command: Command) => {
        const result = await run(() => loadTool().backup(resolve(file), process.env, say));
        const body = {
          file: result.file,
          taken_at: result.header.taken_at,
          migrations: result.header.migrations.length,
          schema_version: result.header.migrations[result.header.migrations.length - 1] ?? null,
          tables: Object.keys(result.rows).length,
          rows: result.rows,
          // where the server secret is: not in the file, to be kept beside it (SVC_SERVER_SECRET or the file's path)
          server_secret_to_keep: result.server_secret,
        };
        output(command, body, () =>
          printKeyValues([
            ['file', body.file],
            ['taken_at', body.taken_at],
            ['schema_version', body.schema_version],
            ['tables', body.tables],
            ['rows', totalRows(result.rows)],
            ['server_secret_to_keep', body.server_secret_to_keep ?? 'none'],
          ]),
        );
      }),
    );

  program
    .command('restore')
    .description(
      'load a snapshot written by svc backup into an empty database (a fresh SVC_HOME, or an empty ' +
        'SVC_DATABASE_URL) with no daemon running; the whole file is checked first and loaded in one transaction ' +
        '(a bad file changes nothing: snapshot_corrupt); an older snapshot is migrated forward after the load',
    )
    .argument('<file>', 'the snapshot file')
    .addOption(new Option('--force', 'replace everything in a non-empty database (kept as it was if anything fails)'))
    .addOption(
      new Option('--verify', 'only read and check the whole file (checksums, row counts); touch no database').conflicts(
        'force',
      ),
    )
    .action(
      action(async (file: string, options: { force?: boolean; verify?: boolean }, command: Command) => {
        if (options.verify) {
          const checked = await run(() => loadTool().verify(resolve(file)));
          output(command, checked, () =>
            printKeyValues([
              ['file', checked.file],
              ['ok', checked.checksums ? 'yes' : 'yes (format 1: gzip CRC and row counts; no per-table checksums)'],
              ['taken_at', checked.taken_at],
              ['schema_version', checked.schema_version],
              ['tables', checked.tables],
              ['rows', totalRows(checked.rows)],
              [
                'restorable_here',
                checked.unknown_migrations.length === 0
                  ? 'yes'
                  : `no: a newer svc's schema (${checked.unknown_migrations.join(', ')})`,
              ],
            ]),
          );
          return;
        }
        const result = await run(() =>
          loadTool().restore(resolve(file), { force: options.force === true }, process.env, say),
        );
        output(command, result, () =>
          printKeyValues([
            ['file', result.file],
            ['taken_at', result.taken_at],
            ['tables', Object.keys(result.rows).length],
            ['rows', totalRows(result.rows)],
            ['migrated_forward', result.migrated_forward.length > 0 ? result.migrated_forward.join(', ') : 'none'],
          ]),
        );
      }),
    );
}
