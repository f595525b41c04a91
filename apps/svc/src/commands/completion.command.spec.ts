import { resolve } from 'node:path';

import { Command, Option } from 'commander';

import {
  completionCandidates,
  completionContext,
  completionScript,
  selfInvocation,
  SHELLS,
} from './completion.command';

function tree(): Command {
  const program = new Command('svc').option('--json').option('--url <url>');
  const items = program.command('items');
  items.command('list').alias('ls').option('--project <project>').option('--priority <p>');
  items.command('get <ref> [field]');
  program
    .command('frontier')
    .command('list')
    .addOption(new Option('--only <part>').choices(['runnable', 'blocked']));
  return program;
}

describe(completionContext.name, () => {
  it('should walk subcommands and aliases, skipping option values', () => {
    const context = completionContext(tree(), ['--url', 'http://x', 'items', 'ls', '--priority', 'high', '']);
    expect(context.command.name()).toBe('list');
    expect(context.url).toBe('http://x');
    expect(context.valueOf).toBeNull();
  });

  it('should name the option whose value is completed, and the positional argument', () => {
    expect(completionContext(tree(), ['items', 'list', '--project', ''])?.valueOf?.long).toBe('--project');
    expect(completionContext(tree(), ['items', 'get', ''])?.argument).toBe('ref');
    expect(completionContext(tree(), ['items', 'get', 'AL-1', ''])?.argument).toBe('field');
  });
});

describe(completionCandidates.name, () => {
  it('should list subcommands, options with inherited ones, and choices, by prefix', async () => {
    expect(await completionCandidates(tree(), ['it'])).toEqual(['items']);
    expect(await completionCandidates(tree(), ['items', ''])).toEqual(['list', 'get']);
    expect(await completionCandidates(tree(), ['items', 'list', '--'])).toEqual([
      '--project',
      '--priority',
      '--json',
      '--url',
      '--help',
    ]);
    expect(await completionCandidates(tree(), ['frontier', 'list', '--only', 'r'])).toEqual(['runnable']);
  });
});

describe('the printed completion scripts', () => {
  it('call the executable that printed them, quoted, with svc on PATH as the fallback', () => {
    const self = ["/opt/node's/bin/node", '/home/a b/svc/bin/svc.js'];
    expect(selfInvocation('/usr/bin/node', 'bin/svc.js')).toEqual(['/usr/bin/node', resolve('bin/svc.js')]);
    expect(selfInvocation('/usr/local/bin/svc', '/usr/local/bin/svc')).toEqual(['/usr/local/bin/svc']);
    expect(completionScript('bash', self)).toContain(
      `local -a self=('/opt/node'\\''s/bin/node' '/home/a b/svc/bin/svc.js')`,
    );
    expect(completionScript('zsh', self)).toContain(`self=('/opt/node'\\''s/bin/node' '/home/a b/svc/bin/svc.js')`);
    expect(completionScript('fish', self)).toContain(`set -l self '/opt/node\\'s/bin/node' '/home/a b/svc/bin/svc.js'`);
    for (const shell of SHELLS) expect(completionScript(shell, self)).toMatch(/self=?\(?svc\)?|set self svc/);
  });
});
