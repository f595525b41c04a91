import { Command } from 'commander';

import { CliError, EXIT } from './output';
import { exitCodesHelp } from './usage';

const TOPICS: Record<string, () => string> = {
  'exit-codes': exitCodesHelp,
};

export function registerHelpCommand(program: Command): void {
  program.helpCommand(false);
  program
    .command('help [command...]')
    .description(`help for a command, or a topic: ${Object.keys(TOPICS).join(', ')}`)
    .action((words: string[]) => {
      if (words.length === 1 && TOPICS[words[0]]) {
        process.stdout.write(TOPICS[words[0]]());
        return;
      }
      let target = program;
      for (const word of words) {
        const next = target.commands.find((c) => c.name() === word || c.aliases().includes(word));
        if (!next) {
          const err = new CliError(
            'unknown_command',
            `no command or help topic "${words.join(' ')}"; topics: ${Object.keys(TOPICS).join(', ')}`,
            EXIT.usage,
          );
          process.stderr.write(`error: ${err.message}\n`);
          process.exitCode = err.exitCode;
          return;
        }
        target = next;
      }
      target.outputHelp();
    });
}
