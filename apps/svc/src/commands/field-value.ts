import { CliError } from '../output';

export interface FieldValueOptions {
  stdin?: boolean;
  value?: string;
  clear?: boolean;
}

// Exactly one source: when two are given, which one wins is refused rather than guessed.
export type FieldValueSource = { kind: 'text'; value: string } | { kind: 'stdin' } | { kind: 'clear' };

export function fieldValueSource(positional: string | undefined, options: FieldValueOptions): FieldValueSource {
  const given = [
    positional !== undefined && 'a value argument',
    options.value !== undefined && '--value',
    options.stdin && '--stdin',
    options.clear && '--clear',
  ].filter((g): g is string => typeof g === 'string');
  if (given.length === 0) {
    throw new CliError(
      'invalid_argument',
      'give the value: svc items update <ref> <field> <value> (or --value, --stdin, --clear)',
    );
  }
  if (given.length > 1) {
    throw new CliError('invalid_argument', `give the value once: ${given.join(' and ')} were both given`);
  }
  if (options.clear) return { kind: 'clear' };
  if (options.stdin) return { kind: 'stdin' };
  return { kind: 'text', value: positional ?? options.value! };
}
