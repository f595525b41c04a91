import { resolveConnection } from '@app/client/connection';

import type * as UpCommand from './commands/up.command';
import { resolveProjectScope } from './workspace';

// Skips loading every command's module (about 0.2 s of CPU before the TUI's first frame; bench/README.md "Terminal
// UI"); anything else returns null and takes the full command line, which explains it.
export function tuiFastPath(argv: readonly string[]): Promise<number> | null {
  if (argv[0] !== 'tui') return null;
  const options: { url?: string; token?: string; project?: string; readOnly?: boolean } = {};
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    const valued = /^--(url|token|project)(?:=(.*))?$/.exec(a);
    if (valued) {
      const value = valued[2] ?? argv[++i];
      if (!value || value.startsWith('-')) return null;
      options[valued[1] as 'url' | 'token' | 'project'] = value;
    } else if (a === '--read-only') {
      options.readOnly = true;
    } else {
      return null;
    }
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { openTui } = require('./commands/up.command') as typeof UpCommand;
  // the same scope as every project-scoped command: --project, else SVC_PROJECT, else the nearest .svc.json
  const project = resolveProjectScope(options.project)?.project;
  const args = [...(project ? ['--project', project] : []), ...(options.readOnly ? ['--read-only'] : [])];
  return openTui(resolveConnection({ url: options.url, token: options.token }), args);
}
