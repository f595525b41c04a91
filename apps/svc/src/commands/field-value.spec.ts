import { buildProgram } from '../program';
import { fieldValueSource } from './field-value';

describe('svc items update: where the value comes from', () => {
  it('takes the value as a third positional (svc items update ATL-41 priority low)', async () => {
    const program = buildProgram(['node', 'svc']);
    const update = program.commands.find((c) => c.name() === 'items')!.commands.find((c) => c.name() === 'update')!;
    let seen: unknown[] = [];
    update.action((...args: unknown[]) => {
      seen = args.slice(0, 3);
    });
    await program.parseAsync(['node', 'svc', 'items', 'update', 'ATL-41', 'priority', 'low']);
    expect(seen).toEqual(['ATL-41', 'priority', 'low']);
  });

  it('keeps --value, --stdin and --clear', () => {
    expect(fieldValueSource(undefined, { value: 'low' })).toEqual({ kind: 'text', value: 'low' });
    expect(fieldValueSource(undefined, { stdin: true })).toEqual({ kind: 'stdin' });
    expect(fieldValueSource(undefined, { clear: true })).toEqual({ kind: 'clear' });
    expect(fieldValueSource('low', {})).toEqual({ kind: 'text', value: 'low' });
    expect(fieldValueSource('', {})).toEqual({ kind: 'text', value: '' });
  });

  it('refuses no value and two values, naming them', () => {
    expect(() => fieldValueSource(undefined, {})).toThrow(/give the value/);
    expect(() => fieldValueSource('low', { value: 'high' })).toThrow(/a value argument and --value/);
    expect(() => fieldValueSource('low', { clear: true })).toThrow(/a value argument and --clear/);
    expect(() => fieldValueSource(undefined, { stdin: true, clear: true })).toThrow(/--stdin and --clear/);
  });
});
