import { Command, Option } from 'commander';

import { version } from '../../../package.json';
import { COLOR_MODES, ColorMode, setColorMode } from './color';
import { COMMAND_GROUPS } from './commands';
import { applyProjectScope, setOutputOptions } from './context';
import { registerCompletionCommand } from './commands/completion.command';
import { addDiscoverability } from './discoverability';
import { registerHelpCommand } from './help.command';
import { jsonRequested, writeUsageError } from './usage';

export function buildProgram(argv: string[] = process.argv): Command {
  const program = new Command('svc')
    .description('svc: the backlog, its charge frontier and machine connections, from the command line')
    .version(version, '-V, --version')
    .option('--url <url>', 'daemon address (env SVC_URL, else the credential file, else http://127.0.0.1:7700)')
    .option('--token <token>', 'API token or machine credential (env SVC_TOKEN, else the credential file)')
    // a plain flag for commander: main takes `--json a,b` fields out of argv first (usage.ts extractJsonFields)
    .option(
      '--json',
      'print the JSON body exactly as the HTTP API returns it; --json a,b keeps these fields of each row',
    )
    .option('--jq <expression>', 'filter the JSON output with a jq expression (implies --json; strings print raw)')
    .option('--wide', 'tables show every column, untruncated, however wide the terminal')
    .addOption(
      new Option('--color <when>', 'colour: auto (on a terminal, unless NO_COLOR is set), always or never')
        .choices(COLOR_MODES)
        .default('auto'),
    )
    .hook('preAction', (_program, actionCommand) => {
      const opts = actionCommand.optsWithGlobals<{ color?: ColorMode; jq?: string; wide?: boolean }>();
      setColorMode(opts.color ?? 'auto');
      setOutputOptions({ jq: opts.jq, wide: Boolean(opts.wide) });
    })
    // Parse failures throw (main maps them to exit 64, JSON under --json); set before any command is added so
    // every command inherits it.
    .exitOverride()
    .configureOutput({
      outputError: writeUsageError(() => jsonRequested(argv)),
      // under --json, stderr carries the JSON error alone (no help after it)
      writeErr: (text) => {
        if (!jsonRequested(argv)) process.stderr.write(text);
      },
    })
    // the error and its "Did you mean …?" stay on screen instead of scrolling away under the whole help
    .showHelpAfterError('(add --help for usage)')
    .enablePositionalOptions(false);
  for (const register of COMMAND_GROUPS) register(program);
  registerHelpCommand(program);
  registerCompletionCommand(program);
  applyProjectScope(program);
  addDiscoverability(program);
  return program;
}
