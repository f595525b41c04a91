import { Command, Option } from 'commander';

import type { SvcApi } from '@app/client';
import type { ClaimHolder, FrontierItemWire } from '@app/contracts';

import { paint, tone } from '../color';
import { apiOf, projectOption, scopedProject, scopedRef, wantsJson } from '../context';
import { action, CliError, output, printKeyValues, printTable } from '../output';
import { relativeTime } from '../time';

// A read takes any cap as a what-if; a charge or schedule runs under it, so one above the project policy's is an
// organization admin's (403 wip_cap_override_forbidden otherwise).
export const wipCapOption = (use: 'read' | 'charge' = 'read') =>
  new Option(
    '--wip-cap <n>',
    use === 'read'
      ? "what-if WIP cap for this read, any value (default: the project's policy wip_cap, else 30)"
      : "WIP cap for this charge (default: the project's policy wip_cap, else 30); a lower one is anyone's, a higher one an organization admin's",
  ).env('SVC_WIP_CAP');

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

// A daemon that cannot say (an older one) leaves the column empty rather than failing the view.
export async function claimsByItem(api: SvcApi, projects: string[]): Promise<Map<string, ClaimHolder>> {
  const bodies = await Promise.all([...new Set(projects)].map((p) => api.claims(p).catch(() => null)));
  return new Map(bodies.flatMap((b) => b?.claims ?? []).map((c) => [c.item_id, c]));
}

// session, harness and since: "#12 claude-code 3 min ago"
export function claimCell(claim: ClaimHolder | undefined): string {
  return claim ? `#${claim.session_id} ${claim.harness} ${relativeTime(claim.claimed_at)}` : '';
}

export function printFrontierRows(
  title: string,
  rows: FrontierItemWire[],
  withReasons = false,
  claims: Map<string, ClaimHolder> = new Map(),
): void {
  process.stdout.write(`${paint().bold(tone(title))} (${rows.length})\n`);
  if (withReasons) {
    printTable(
      [
        { header: 'item', keep: true },
        { header: 'adapter', priority: 2 },
        { header: 'priority', priority: 3 },
        { header: 'status', priority: 2 },
        { header: 'blocked by', priority: 4, flex: true },
        { header: 'claimed by', priority: 3 },
        { header: 'reasons', priority: 4, flex: true },
      ],
      rows.map((r) => [
        r.item_id,
        r.adapter,
        tone(r.priority),
        r.status,
        r.blocked_by.join(', '),
        claimCell(claims.get(r.item_id)),
        r.blocked_reasons.join('; '),
      ]),
    );
    return;
  }
  printTable(
    [
      { header: '#', keep: true },
      { header: 'item', keep: true },
      { header: 'adapter', priority: 3 },
      { header: 'priority', priority: 3 },
      { header: 'status', priority: 2 },
      { header: 'depth', priority: 1 },
      { header: 'unblocks', priority: 1 },
      { header: 'claimed by', priority: 4 },
      { header: 'title', priority: 5, flex: true },
    ],
    rows.map((r, i) => [
      i + 1,
      r.item_id,
      r.adapter,
      tone(r.priority),
      r.status,
      r.downstream_depth,
      r.unblocks_count,
      claimCell(claims.get(r.item_id)),
      r.title,
    ]),
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
      new Option('--only <part>', 'return one part only (ready: the same as runnable)').choices([
        'runnable',
        'ready',
        'blocked',
        'frozen',
        'edges',
      ]),
    )
    .option('--adapter <adapter>', 'rows with this adapter only (refine, shepherd, conduct, polish, usher, wait, ...)')
    .addOption(new Option('--priority <priority>', 'rows with this priority only').choices(['high', 'medium', 'low']))
    .option('--blocker <ref>', 'edges whose blocker is this item')
    .option('--dependent <ref>', 'edges whose dependent is this item')
    .option('--abandoned', 'edges whose blocker was cancelled or stopped (they can never clear)')
    .action(
      action(async (options: Record<string, string | boolean | undefined>, command: Command) => {
        const api = apiOf(command);
        const body = await api.frontierList({
          project: requireProject(options.project as string | undefined),
          wip_cap: options.wipCap as string | undefined,
          gate_point: options.gatePoint as string | undefined,
          // one vocabulary: runnable (the API's bucket is named ready)
          only: options.only === 'runnable' ? 'ready' : (options.only as string | undefined),
          adapter: options.adapter as string | undefined,
          priority: options.priority as string | undefined,
          blocker: options.blocker as string | undefined,
          dependent: options.dependent as string | undefined,
          abandoned: Boolean(options.abandoned),
        });
        const claims = wantsJson(command) ? new Map<string, ClaimHolder>() : await claimsByItem(api, [body.project]);
        output(command, body, (b) => {
          printKeyValues([
            ['project', b.project],
            ['wip', `${b.wip_active} active of ${b.wip_cap}`],
          ]);
          printFrontierRows('runnable', b.ready_rows, false, claims);
          printFrontierRows('blocked', b.blocked_rows, true, claims);
          if (b.frozen_rows.length > 0) printFrontierRows('frozen', b.frozen_rows, false, claims);
          process.stdout.write(`dependency edges (${b.dependency_edges.length})\n`);
          printTable(
            [
              { header: 'blocker', keep: true },
              { header: 'dependent', keep: true },
              { header: 'gate', priority: 3 },
              { header: 'satisfaction', priority: 3 },
              { header: 'blocker stage', priority: 2 },
              { header: 'terminal', priority: 1 },
              { header: 'abandoned', priority: 2 },
              { header: 'environment', priority: 1, flex: true },
            ],
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
