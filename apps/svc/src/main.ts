import { CommanderError } from 'commander';

import { setOutputOptions } from './context';
import { CliError, EXIT, reportError } from './output';
import { buildProgram } from './program';
import { extractJsonFields, jsonRequested, usageExit } from './usage';

// `svc … | head` closes the pipe early: that is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}

const json = jsonRequested(process.argv.slice(2));
const program = buildProgram();
const { argv, fields } = extractJsonFields(process.argv, program);
if (fields) setOutputOptions({ jsonFields: fields });

program.parseAsync(argv).catch((err: unknown) => {
  if (err instanceof CommanderError) process.exitCode = usageExit(err, json);
  // thrown while parsing (an option's own check): a usage error too
  else if (err instanceof CliError)
    process.exitCode = reportError(new CliError(err.code, err.message, EXIT.usage), json);
  else process.exitCode = reportError(err, json);
});
