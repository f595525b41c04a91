import { Command, InvalidArgumentError, Option } from 'commander';

import { DEFAULT_MAX_NODES, itemGraph, projectGraph, renderDot, renderMermaid } from '@app/client';

import { apiOf, wantsJson } from '../context';
import { action, printJson } from '../output';
import { parseIntOption } from './backlog-cli';

const REF = /^[A-Za-z][A-Za-z0-9]{0,15}-[0-9]{1,9}$/;

function positive(value: string): number {
  const n = parseIntOption(value);
  if (n < 1) throw new InvalidArgumentError('must be at least 1');
  return n;
}

export function registerGraphCommand(program: Command): void {
  program
    .command('graph <target>')
    .description(
      "draw the dependency graph around an item (upstream and downstream, --depth) or of a project's open items",
    )
    .addOption(new Option('--format <format>', 'output format').choices(['mermaid', 'dot', 'json']).default('mermaid'))
    .option('--depth <n>', 'around an item: how many hops each way', positive, 2)
    .option('--max-nodes <n>', 'cut the graph past this many items (with a note)', positive, DEFAULT_MAX_NODES)
    .action(
      action(async (target: string, options: { format: string; depth: number; maxNodes: number }, command: Command) => {
        const api = apiOf(command);
        const graph = REF.test(target)
          ? await itemGraph(api, target.toUpperCase(), options.depth, options.maxNodes)
          : await projectGraph(api, target, options.maxNodes);
        if (graph.truncated && !wantsJson(command)) process.stderr.write(`note: ${graph.truncated.note}\n`);
        if (options.format === 'json' || wantsJson(command)) {
          printJson(graph);
          return;
        }
        // The text is Mermaid or dot, escaped for that syntax (render-graph.ts): printed as is.
        process.stdout.write(options.format === 'dot' ? renderDot(graph) : renderMermaid(graph));
      }),
    );
}
