import type * as Cli from './cli';
import { tuiFastPath } from './tui-fast-path';

// `svc … | head` closes the pipe early: that is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}

const words = process.argv.slice(2);
const tui = tuiFastPath(words);
if (tui) {
  tui.then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
} else {
  // The full command line, loaded only when it is needed (`svc tui` starts without it).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('./cli') as typeof Cli).runCli(words);
}
