import { Command, CommanderError } from 'commander';

import { paintErr } from './color';
import { EXIT } from './output';

const FIELD_LIST = /^[a-z_][a-z0-9_]*(,[a-z_][a-z0-9_]*)*$/;

// Every command name and alias of the program: a word after --json that names a command is that command, not a field.
export function commandWords(program: Command): Set<string> {
  const words = new Set<string>();
  const walk = (c: Command) => {
    for (const sub of c.commands) {
      words.add(sub.name());
      for (const alias of sub.aliases()) words.add(alias);
      walk(sub);
    }
  };
  walk(program);
  return words;
}

// `svc projects show --json alpha`: alpha is the argument, not fields.
function wordIsArgument(program: Command, argv: string[], skip: number): boolean {
  let command = program;
  let positionals = 0;
  const optionOf = (flag: string) => {
    for (let c: Command | null = command; c; c = c.parent) {
      const found = c.options.find((o) => o.long === flag || o.short === flag);
      if (found) return found;
    }
    return undefined;
  };
  for (let j = 2; j < argv.length; j++) {
    const token = argv[j];
    if (token === '--') {
      positionals += argv.length - j - 1;
      break;
    }
    if (token.startsWith('-')) {
      const option = optionOf(token);
      if (option && !token.includes('=') && (option.required || option.optional)) j++;
      continue;
    }
    const sub =
      positionals === 0 ? command.commands.find((c) => c.name() === token || c.aliases().includes(token)) : undefined;
    if (sub) command = sub;
    else if (j !== skip) positionals++;
  }
  return positionals < command.registeredArguments.filter((a) => a.required).length;
}

// The word after --json is fields only when it looks like a field list, is no command name, a command is named
// elsewhere and the command does not need it as an argument.
export function extractJsonFields(argv: string[], program: Command): { argv: string[]; fields?: string[] } {
  const commands = commandWords(program);
  const out: string[] = [];
  let fields: string[] | undefined;
  // no command at all (svc --json nonsense): the word is a mistyped command, not fields
  const hasCommand = argv.some((a) => commands.has(a));
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    if (arg.startsWith('--json=')) {
      fields = arg.slice('--json='.length).split(',').filter(Boolean);
      out.push('--json');
      continue;
    }
    const next = argv[i + 1];
    if (
      arg === '--json' &&
      hasCommand &&
      next !== undefined &&
      FIELD_LIST.test(next) &&
      !commands.has(next) &&
      !wordIsArgument(program, argv, i + 1)
    ) {
      fields = next.split(',');
      out.push('--json');
      i++;
      continue;
    }
    out.push(arg);
  }
  return { argv: out, fields };
}

// --json or --jq anywhere before `--`: errors print as JSON, even when parsing fails before options are known.
export function jsonRequested(argv: string[]): boolean {
  const end = argv.indexOf('--');
  const args = end < 0 ? argv : argv.slice(0, end);
  return args.some((a) => a === '--json' || a.startsWith('--json=') || a === '--jq' || a.startsWith('--jq='));
}

const USAGE_CODES: Record<string, string> = {
  'commander.unknownOption': 'unknown_option',
  'commander.unknownCommand': 'unknown_command',
  'commander.missingArgument': 'missing_argument',
  'commander.optionMissingArgument': 'missing_argument',
  'commander.missingMandatoryOptionValue': 'missing_option',
  'commander.invalidArgument': 'invalid_argument',
  'commander.excessArguments': 'excess_arguments',
  'commander.conflictingOption': 'conflicting_option',
};

// A parse failure (commander with exitOverride): exit 64 for a usage error, as JSON {code, message} on stderr under
// --json (commander's own text otherwise, already written); help and version keep commander's exit code.
export function usageExit(err: CommanderError, json: boolean): number {
  const code = USAGE_CODES[err.code];
  if (!code) return err.exitCode;
  if (json) {
    const message = err.message.replace(/^error: /, '');
    process.stderr.write(`${JSON.stringify({ code, message })}\n`);
  }
  return EXIT.usage;
}

export function writeUsageError(json: () => boolean) {
  return (text: string, write: (text: string) => void): void => {
    if (json()) return;
    write(text.replace(/^error:/, paintErr().red('error:')));
  };
}

export const EXIT_CODES: [number | string, string][] = [
  [0, 'success (svc charge: dispatched, or a dry run)'],
  [
    1,
    'refused or failed: the daemon answered with an error (4xx/5xx), or the command failed (svc charge: nothing dispatched)',
  ],
  [2, 'daemon unreachable: nothing answered at the address (svc auth status: the daemon is down)'],
  [3, 'not connected: no credential, or the daemon refused it (401/403)'],
  [
    64,
    'usage error: unknown command or option, missing argument, bad option value, unknown --json field, invalid --jq expression, svc charge with no confirmation possible (no --yes, stdin gave no answer)',
  ],
  [130, 'cancelled: declined at a confirmation (svc charge, svc setup), or interrupted with Ctrl-C'],
  [
    'other',
    "passed on from the process svc ran: svc charge --dispatch-command (the dispatcher's code), svc daemon and svc self-host (the daemon's code: 69 port taken, 75 data folder in use, 78 bad configuration; 128 killed by a signal), svc tui (the TUI's code)",
  ],
];

export function wrap(text: string, width: number, indent = 0): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line.length > 0 && line.length + 1 + word.length > width) {
      lines.push(line);
      line = ' '.repeat(indent) + word;
    } else line = line.length > 0 ? `${line} ${word}` : word;
  }
  if (line.length > 0) lines.push(line);
  return lines.join('\n');
}

export function exitCodesHelp(width = Math.min(process.stdout.columns || 80, 100)): string {
  const lines = EXIT_CODES.map(([code, text]) => `  ${String(code).padEnd(6)}${wrap(text, width - 8, 8)}`);
  const json =
    'With --json (or --jq), errors print on stderr as one JSON object {"code", "message"}; the error bodies ' +
    'of the daemon print as they are.';
  return `Exit codes of svc:\n\n${lines.join('\n')}\n\n${wrap(json, width)}\n`;
}
