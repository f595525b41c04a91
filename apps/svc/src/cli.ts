import { CommanderError } from 'commander';

import { COMPLETE_COMMAND, completionCandidates } from './commands/completion.command';
import { setOutputOptions } from './context';
import { FIRST_STEPS } from './discoverability';
import { CliError, EXIT, reportError } from './output';
import { buildProgram } from './program';
import { extractJsonFields, jsonRequested, usageExit } from './usage';

// Usage errors exit 64 (JSON under --json).
export function runCli(words: string[]): void {
  const json = jsonRequested(words);
  const program = buildProgram();
  const run = (): Promise<unknown> => {
    if (words.length === 0) return Promise.resolve(process.stdout.write(FIRST_STEPS));
    if (words[0] === COMPLETE_COMMAND)
      return completionCandidates(program, words.slice(1)).then((candidates) => {
        if (candidates.length > 0) process.stdout.write(`${candidates.join('\n')}\n`);
      });
    const { argv, fields } = extractJsonFields(process.argv, program);
    if (fields) setOutputOptions({ jsonFields: fields });
    return program.parseAsync(argv);
  };
  run().catch((err: unknown) => {
    if (err instanceof CommanderError) process.exitCode = usageExit(err, json);
    // thrown while parsing (an option's own check): a usage error too
    else if (err instanceof CliError)
      process.exitCode = reportError(new CliError(err.code, err.message, EXIT.usage), json);
    else process.exitCode = reportError(err, json);
  });
}
