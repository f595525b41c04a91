import { Command, Option } from 'commander';

import type { FrontierItemWire } from '@app/contracts';

import { paint, tone } from '../color';
import { apiOf, projectOption, scopedProject, scopedRef } from '../context';
import { action, CliError, output, printKeyValues, printTable } from '../output';

export const wipCapOption = () =>
  new Option('--wip-cap <n>', "WIP cap override (default: the project's policy wip_cap, else 30)").env('SVC_WIP_CAP');

// Without a project anywhere (flag, SVC_PROJECT, .svc.json) a command that needs one says how to name it.
export function requireProject(flag: string | undefined): string {
  const project = scopedProject(flag);
  if (!project) {
    throw new CliError(
      'project_required',
      'name a project: --project <id>, env SVC_PROJECT, or a .svc.json {"project": "<id>"} here or in a parent folder',
    );
  }
  return project;
}

export function printFrontierRows(title: string, rows: FrontierItemWire[], withReasons = false): void {
  process.stdout.write(`${paint().bold(tone(title))} (${rows.length})\n`);
  printTable(
    withReasons
      ? ['item', 'adapter', 'priority', 'status', 'blocked by', 'reasons']
      : ['#', 'item', 'adapter', 'priority', 'status', 'depth', 'unblocks', 'title'],
    rows.map((r, i) =>
      withReasons
        ? [r.item_id, r.adapter, tone(r.priority), r.status, r.blocked_by.join(', '), r.blocked_reasons.join('; ')]
        : [i + 1, r.item_id, r.adapter, tone(r.priority), r.status, r.downstream_depth, r.unblocks_count, r.title],
    ),
  );
}

export function registerFrontierCommand(program: Command): void {
  const frontier = program.command('frontier').description('the charge frontier: list its buckets and edges, explain');

  frontier
    .command('list')
    .description('frontier.list: runnable, blocked and frozen rows and every unsatisfied dependency edge of a project')
    .addOption(projectOption())
    .addOption(wipCapOption())
    .addOption(
      new Option('--gate-point <gate>', 'edges at one gate only').choices(['activation', 'integration', 'closure']),
    )
    .addOption(
      new Option('--only <part>', 'return one part only (ready is an older name of runnable)').choices([
        'runnable',
        'blocked',
        'frozen',
        'edges',
        'ready',
      ]),
    )
    .option('--adapter <adapter>', 'rows with this adapter only (refine, shepherd, conduct, polish, usher, wait, ...)')
    .addOption(new Option('--priority <priority>', 'rows with this priority only').choices(['high', 'medium', 'low']))
    .option('--blocker <ref>', 'edges whose blocker is this item')
    .option('--dependent <ref>', 'edges whose dependent is this item')
    .option('--abandoned', 'edges whose blocker was cancelled or stopped (they can never clear)')
    .action(
      action(async (options: Record<string, string | boolean | undefined>, command: Command) => {
        const body = await apiOf(command).frontierList({
          project: requireProject(options.project as string | undefined),
          wip_cap: options.wipCap as string | undefined,
          gate_point: options.gatePoint as string | undefined,
          only: options.only === 'runnable' ? 'ready' : (options.only as string | undefined),
          adapter: options.adapter as string | undefined,
          priority: options.priority as string | undefined,
          blocker: options.blocker as string | undefined,
          dependent: options.dependent as string | undefined,
          abandoned: Boolean(options.abandoned),
        });
        output(command, body, (b) => {
          printKeyValues([
            ['project', b.project],
            ['wip', `${b.wip_active} active of ${b.wip_cap}`],
          ]);
          printFrontierRows('runnable', b.ready_rows);
          printFrontierRows('blocked', b.blocked_rows, true);
          if (b.frozen_rows.length > 0) printFrontierRows('frozen', b.frozen_rows);
          process.stdout.write(`dependency edges (${b.dependency_edges.length})\n`);
          printTable(
            ['blocker', 'dependent', 'gate', 'satisfaction', 'blocker stage', 'terminal', 'abandoned', 'environment'],
            b.dependency_edges.map((e) => [
              e.blocker ?? '(missing)',
              e.dependent,
              e.gate_point,
              e.satisfaction,
              e.blocker_stage,
              e.blocking_terminal,
              e.blocking_abandoned,
              e.environment
                ? `${e.environment.name}: ${e.environment.delivery_state}${e.environment.in_delivery_flow ? ' (in flow)' : ''}`
                : '',
            ]),
          );
        });
      }),
    );

  frontier
    .command('explain <ref>')
    .description(
      'why an item is or is not runnable: unsatisfied facts, critical path, bucket and rank (a bare number names an ' +
        'item of the scoped project)',
    )
    .addOption(wipCapOption())
    .action(
      action(async (ref: string, options: { wipCap?: string }, command: Command) => {
        const api = apiOf(command);
        const body = await api.explain(await scopedRef(api, ref), { wip_cap: options.wipCap });
        output(command, body, (b) => {
          printKeyValues([
            ['item', `${b.item_id} (${b.project})`],
            ['status', b.status],
            ['bucket', b.position ? `${b.bucket} #${b.position}` : b.bucket],
            ['adapter', b.adapter],
          ]);
          for (const line of b.summary) process.stdout.write(`  - ${line}\n`);
          if (b.unsatisfied.length > 0) {
            printTable(
              ['blocker', 'satisfaction', 'state', 'would satisfy'],
              b.unsatisfied.map((u) => [u.blocker ?? '(missing)', u.satisfaction, u.state ?? '', u.need]),
            );
          }
          if (b.unblock_roots.length > 0)
            process.stdout.write(`runnable now to unblock it: ${b.unblock_roots.join(', ')}\n`);
          if (b.stuck.length > 0) process.stdout.write(`needs a person: ${b.stuck.join(', ')}\n`);
        });
      }),
    );
}
