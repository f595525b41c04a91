import { Command, Option } from 'commander';

import { completionCandidates, completionContext } from './completion.command';

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
