import { COMPLETE_COMMAND, completionCandidates } from './commands/completion.command';
import { FIRST_STEPS } from './discoverability';
import { buildProgram } from './program';

// `svc … | head` closes the pipe early: that is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}

const program = buildProgram();
const words = process.argv.slice(2);

// `svc` alone says where to start (exit 0); `svc __complete <words…>` answers the shell completion scripts.
const run: Promise<unknown> =
  words.length === 0
    ? Promise.resolve(process.stdout.write(FIRST_STEPS))
    : words[0] === COMPLETE_COMMAND
      ? completionCandidates(program, words.slice(1)).then((candidates) => {
          if (candidates.length > 0) process.stdout.write(`${candidates.join('\n')}\n`);
        })
      : program.parseAsync(process.argv);

run.catch((err: unknown) => {
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
