import type * as Program from './program';
import { tuiFastPath } from './tui-fast-path';

// `svc … | head` closes the pipe early: that is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}

const fail = (err: unknown) => {
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
};

const tui = tuiFastPath(process.argv.slice(2));
if (tui) {
  tui.then((code) => process.exit(code), fail);
} else {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { buildProgram } = require('./program') as typeof Program;
  buildProgram().parseAsync(process.argv).catch(fail);
}
