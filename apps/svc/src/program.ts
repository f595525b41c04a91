import { Command, Option } from 'commander';

import { version } from '../../../package.json';
import { COLOR_MODES, ColorMode, setColorMode } from './color';
import { COMMAND_GROUPS } from './commands';
import { applyProjectScope } from './context';
import { registerCompletionCommand } from './commands/completion.command';
import { addDiscoverability } from './discoverability';

export function buildProgram(): Command {
  const program = new Command('svc')
    .description('svc: the backlog, its charge frontier and machine connections, from the command line')
    .version(version, '-V, --version')
    .option('--url <url>', 'daemon address (env SVC_URL, else the credential file, else http://127.0.0.1:7700)')
    .option('--token <token>', 'API token or machine credential (env SVC_TOKEN, else the credential file)')
    .option('--json', 'print the JSON body exactly as the HTTP API returns it')
    .addOption(
      new Option('--color <when>', 'colour: auto (on a terminal, unless NO_COLOR is set), always or never')
        .choices(COLOR_MODES)
        .default('auto'),
    )
    .hook('preAction', (_program, actionCommand) => {
      setColorMode(actionCommand.optsWithGlobals<{ color?: ColorMode }>().color ?? 'auto');
    })
    // the error and its "Did you mean …?" stay on screen instead of scrolling away under the whole help
    .showHelpAfterError('(add --help for usage)')
    .enablePositionalOptions(false);
  for (const register of COMMAND_GROUPS) register(program);
  registerCompletionCommand(program);
  applyProjectScope(program);
  addDiscoverability(program);
  return program;
}
