import { Command } from 'commander';

import { extractJsonFields, jsonRequested } from './usage';

describe('--json fields in argv', () => {
  const commands = new Command('svc').option('--json').option('--url <url>');
  const items = commands.command('items');
  items.command('list').option('--project <project>');
  items.command('show <ref>');
  commands.command('projects').command('show <id>');
  const node = ['node', 'svc'];

  it('should take a field list after --json and leave a plain --json flag', () => {
    expect(extractJsonFields([...node, 'items', 'list', '--json', 'item_id,title'], commands)).toEqual({
      argv: [...node, 'items', 'list', '--json'],
      fields: ['item_id', 'title'],
    });
    expect(extractJsonFields([...node, '--json=item_id', 'items', 'list'], commands).fields).toEqual(['item_id']);
    expect(extractJsonFields([...node, 'projects', 'show', 'alpha', '--json', 'name'], commands).fields).toEqual([
      'name',
    ]);
    expect(
      extractJsonFields([...node, '--json', 'item_id', '--url', 'x', 'items', 'list', '--project', 'p'], commands)
        .fields,
    ).toEqual(['item_id']);
  });

  it('should leave a command, a ref, an option or anything after -- alone', () => {
    for (const argv of [
      [...node, '--json', 'items', 'list'],
      [...node, 'items', 'show', '--json', 'AL-1'],
      [...node, 'items', 'list', '--json', '--project', 'alpha'],
      [...node, 'items', 'list', '--', '--json', 'title'],
      [...node, '--json', 'nonsense'],
      [...node, 'projects', 'show', '--json', 'alpha'],
      [...node, '--url', 'x', 'projects', 'show', '--json', 'alpha'],
    ]) {
      expect(extractJsonFields(argv, commands)).toEqual({ argv, fields: undefined });
    }
  });

  it('should see --json and --jq before --', () => {
    expect(jsonRequested(['items', '--jq', '.items'])).toBe(true);
    expect(jsonRequested(['items', '--json=title'])).toBe(true);
    expect(jsonRequested(['items', '--', '--json'])).toBe(false);
  });
});
