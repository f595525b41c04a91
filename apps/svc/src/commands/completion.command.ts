import { resolve } from 'node:path';

import { Command, Option } from 'commander';

import { apiFor, connectedCredentials } from '@app/client';

import { action, CliError } from '../output';
import { resolveProjectScope } from '../workspace';

// The script asks `svc __complete <words…>` for candidates, so they always come from the installed binary's commander
// tree and the daemon (cobra's design, docs/adr/0017).
export const COMPLETE_COMMAND = '__complete';
export const SHELLS = ['bash', 'zsh', 'fish'] as const;

// The script calls this executable, not whatever `svc` is on PATH (none when the CLI runs from a checkout); when it
// is gone (node upgraded, checkout moved), the script falls back to `svc` on PATH.
export function selfInvocation(execPath = process.execPath, script: string | undefined = process.argv[1]): string[] {
  const path = script ? resolve(script) : undefined;
  return path && path !== execPath ? [execPath, path] : [execPath];
}

// POSIX single quotes (bash, zsh): ' closes, \' is a literal quote, ' reopens.
export const shQuote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
// fish single quotes: only \ and ' are escaped.
export const fishQuote = (word: string) => `'${word.replace(/[\\']/g, (c) => `\\${c}`)}'`;

export function completionScript(shell: (typeof SHELLS)[number], self: string[] = selfInvocation()): string {
  const sh = self.map(shQuote).join(' ');
  const fish = self.map(fishQuote).join(' ');
  switch (shell) {
    case 'bash':
      return `# svc completion for bash. Load it now: eval "$(svc completion bash)"
# or for every shell: svc completion bash > ~/.local/share/bash-completion/completions/svc
# It runs the svc that printed it (the paths below), else svc on PATH.
_svc_complete() {
  local IFS=$'\\n'
  local -a self=(${sh})
  [[ -x "\${self[0]}" && -e "\${self[-1]}" ]] || self=(svc)
  COMPREPLY=($("\${self[@]}" ${COMPLETE_COMMAND} "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
}
complete -o default -F _svc_complete svc
`;
    case 'zsh':
      return `#compdef svc
# svc completion for zsh. Load it now: eval "$(svc completion zsh)"
# or for every shell: svc completion zsh > "\${fpath[1]}/_svc"
# It runs the svc that printed it (the paths below), else svc on PATH.
_svc() {
  local -a candidates self
  self=(${sh})
  [[ -x "\${self[1]}" && -e "\${self[-1]}" ]] || self=(svc)
  candidates=(\${(f)"$("\${self[@]}" ${COMPLETE_COMMAND} "\${(@)words[2,CURRENT]}" 2>/dev/null)"})
  if (( \${#candidates} )); then compadd -- "\${candidates[@]}"; else _files; fi
}
if (( \${+functions[compdef]} )); then compdef _svc svc; fi
`;
    case 'fish':
      return `# svc completion for fish. Load it now: svc completion fish | source
# or for every shell: svc completion fish > ~/.config/fish/completions/svc.fish
# It runs the svc that printed it (the paths below), else svc on PATH.
function __svc_complete
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l current (commandline -ct)
    set -l self ${fish}
    if not test -x $self[1]; or not test -e $self[-1]
        set self svc
    end
    # quoted, so that an empty current word still counts as a word
    $self ${COMPLETE_COMMAND} $tokens "$current" 2>/dev/null
end
complete -c svc -f -a '(__svc_complete)'
`;
  }
}

export function registerCompletionCommand(program: Command): void {
  program
    .command('completion')
    .description('print a shell completion script: bash, zsh or fish (commands, options, projects and refs)')
    .argument('<shell>', `one of ${SHELLS.join(', ')}`)
    .action(
      action((shell: string) => {
        if (!(SHELLS as readonly string[]).includes(shell)) {
          throw new CliError('validation_failed', `no completion for ${shell}: choose ${SHELLS.join(', ')}`);
        }
        process.stdout.write(completionScript(shell as (typeof SHELLS)[number]));
      }),
    );
}

const visible = (command: Command) => command.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);

function optionsOf(command: Command): Option[] {
  const all: Option[] = [];
  for (let c: Command | null = command; c; c = c.parent) all.push(...c.options.filter((o) => !o.hidden));
  return all;
}

function findOption(command: Command, flag: string): Option | undefined {
  return optionsOf(command).find((o) => o.long === flag || o.short === flag);
}

const takesValue = (o: Option) => o.required || o.optional;

export interface CompletionContext {
  command: Command;
  valueOf: Option | null;
  argument: string | null;
  current: string;
  // --url/--token typed on the line, used for the daemon's candidates
  url?: string;
  token?: string;
}

export function completionContext(program: Command, words: string[]): CompletionContext {
  const current = words.length > 0 ? words[words.length - 1] : '';
  let command = program;
  let positional = 0;
  let url: string | undefined;
  let token: string | undefined;
  const done = words.slice(0, -1);
  for (let i = 0; i < done.length; i++) {
    const word = done[i];
    if (word.startsWith('-')) {
      const [flag, inline] = word.split('=', 2);
      const option = findOption(command, flag);
      if (option && takesValue(option) && inline === undefined) {
        const value = done[i + 1];
        if (flag === '--url') url = value;
        if (flag === '--token') token = value;
        i++;
      }
      continue;
    }
    const sub = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub && positional === 0) command = sub;
    else positional++;
  }
  const previous = done[done.length - 1];
  const previousOption = previous?.startsWith('-') && !previous.includes('=') ? findOption(command, previous) : null;
  if (previousOption && takesValue(previousOption)) {
    return { command, valueOf: previousOption, argument: null, current, url, token };
  }
  const args = command.registeredArguments;
  const arg = args[Math.min(positional, args.length - 1)];
  const argument = arg && (positional < args.length || arg.variadic) ? arg.name() : null;
  return { command, valueOf: null, argument, current, url, token };
}

const REF_ARGUMENTS = new Set(['ref', 'refs', 'dependent', 'blocker']);
const REF_OPTIONS = new Set(['--item', '--blocker', '--dependent']);

// Candidates from the daemon: every failure (no credential, daemon away, slow) answers none.
async function fromDaemon(context: CompletionContext, kind: 'projects' | 'refs'): Promise<string[]> {
  const lookup = (async () => {
    const api = apiFor(connectedCredentials({ url: context.url, token: context.token }));
    if (kind === 'projects') return (await api.projects()).projects.map((p) => p.id);
    const project = resolveProjectScope(undefined)?.project;
    const body = await api.items({ ...(project ? { project } : {}), limit: 500 });
    return body.items.map((i) => i.item_id);
  })();
  const timeout = new Promise<string[]>((resolve) => setTimeout(() => resolve([]), 2000).unref());
  try {
    return await Promise.race([lookup, timeout]);
  } catch {
    return [];
  }
}

export async function completionCandidates(program: Command, words: string[]): Promise<string[]> {
  const context = completionContext(program, words);
  const { command, valueOf, argument, current } = context;
  let candidates: string[] = [];
  if (valueOf) {
    if (valueOf.argChoices) candidates = valueOf.argChoices;
    else if (valueOf.long === '--project') candidates = await fromDaemon(context, 'projects');
    else if (valueOf.long && REF_OPTIONS.has(valueOf.long)) candidates = await fromDaemon(context, 'refs');
  } else if (current.startsWith('-')) {
    candidates = optionsOf(command).flatMap((o) => [o.long, o.short].filter((f): f is string => Boolean(f)));
    if (!candidates.includes('--help')) candidates.push('--help');
  } else if (visible(command).length > 0) {
    candidates = visible(command).map((c) => c.name());
  } else if (argument && REF_ARGUMENTS.has(argument)) {
    candidates = await fromDaemon(context, 'refs');
  } else if (argument === 'shell' && command.name() === 'completion') {
    candidates = [...SHELLS];
  }
  return [...new Set(candidates)].filter((c) => c.startsWith(current));
}
