import { Command } from 'commander';

import { USER_CODE_INPUT_PATTERN } from '@app/contracts';

import { EXAMPLES, FIRST_STEPS } from './discoverability';
import { buildProgram } from './program';

// Every --help of the tree, with the examples printed after the options.
function allHelp(): string[] {
  const texts: string[] = [];
  const walk = (command: Command) => {
    let text = '';
    command.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
    command.outputHelp();
    texts.push(text);
    command.commands.forEach(walk);
  };
  walk(buildProgram(['node', 'svc']));
  return texts;
}

describe('example machine codes in help text', () => {
  const userCode = new RegExp(USER_CODE_INPUT_PATTERN);
  const texts = [FIRST_STEPS, ...Object.values(EXAMPLES).flat(), ...allHelp()];

  it('are accepted by the user-code pattern (a code-shaped token anywhere in any help)', () => {
    const codeShaped = texts.flatMap((t) => t.match(/\b[A-Z0-9]{4}-[A-Z0-9]{4}\b/g) ?? []);
    expect(codeShaped.length).toBeGreaterThan(0);
    expect(codeShaped.filter((c) => !userCode.test(c))).toEqual([]);
  });

  it('are what machine-authorization get/resolve are given in every example', () => {
    const given = texts.flatMap((t) =>
      [...t.matchAll(/machine-authorization (?:get|show|resolve) ([^\s[<]\S*)/g)].map((m) => m[1]),
    );
    expect(given.length).toBeGreaterThan(0);
    expect(given.filter((c) => !userCode.test(c))).toEqual([]);
  });
});
