import { Command } from 'commander';

import { ProjectWire } from '@app/contracts/backlog';

import { apiOf } from '../context';
import { action, output, printKeyValues, printTable } from '../output';
import { collect, jsonObjectOption, parseIntOption } from './backlog-cli';

interface PolicyOptions {
  wipCap?: number;
  titleMaxLength?: number;
  laneRule?: string[];
  defaultLane?: string[];
  policy?: Record<string, unknown>;
  unset?: string[];
}

// --lane-rule harness=claude-code,model=opus*,lane=deep  --default-lane codex=fast
function policyFrom(options: PolicyOptions): Record<string, unknown> {
  const policy: Record<string, unknown> = { ...(options.policy ?? {}) };
  if (options.wipCap !== undefined) policy.wip_cap = options.wipCap;
  if (options.titleMaxLength !== undefined) policy.title_max_length = options.titleMaxLength;
  if (options.laneRule) {
    policy.lane_rules = options.laneRule.map((rule) =>
      Object.fromEntries(rule.split(',').map((pair) => pair.split('=', 2).map((s) => s.trim()))),
    );
  }
  for (const entry of options.defaultLane ?? []) {
    const [token, lane] = entry.split('=', 2);
    policy[`executor_default_lane_${token}`] = lane;
  }
  for (const key of options.unset ?? []) policy[key] = null;
  return policy;
}

function renderProject(p: ProjectWire): void {
  printKeyValues([
    ['project', p.id],
    ['name', p.name],
    ['prefix', p.public_item_prefix],
    ['next sequence', p.next_sequence],
    ['title max length', p.title_max_length],
    ['organization', p.organization],
    ['policy', p.policy],
    ['created', p.created_at],
  ]);
}

function policyOptions(command: Command): Command {
  return command
    .option('--wip-cap <n>', 'policy wip_cap', parseIntOption)
    .option('--title-max-length <n>', 'policy title_max_length (default 200)', parseIntOption)
    .option('--lane-rule <rule>', 'lane rule harness=..,model=..,lane=.. (repeatable; replaces lane_rules)', collect)
    .option('--default-lane <token=lane>', 'executor_default_lane_<token> (repeatable)', collect)
    .option('--policy <json>', 'policy keys as a JSON object', jsonObjectOption);
}

export function registerProjectsCommand(program: Command): void {
  const projects = program.command('projects').description('projects: create, list, show, update policy');

  policyOptions(
    projects
      .command('create <id>')
      .description('create a project (id is a lowercase slug)')
      .requiredOption('--prefix <PREFIX>', 'public item prefix, e.g. ALPHA')
      .option('--name <name>', 'display name (default: the id)'),
  ).action(
    action(async (id: string, options: PolicyOptions & { prefix: string; name?: string }, command: Command) => {
      const body = { id, name: options.name ?? id, public_item_prefix: options.prefix, policy: policyFrom(options) };
      output(command, await apiOf(command).createProject(body), renderProject);
    }),
  );

  projects
    .command('list')
    .description('list the projects you can see')
    .action(
      action(async (_options: unknown, command: Command) => {
        const body = await apiOf(command).projects();
        output(command, body, (b) =>
          printTable(
            ['project', 'name', 'prefix', 'next', 'policy'],
            b.projects.map((p) => [p.id, p.name, p.public_item_prefix, p.next_sequence, p.policy]),
          ),
        );
      }),
    );

  projects
    .command('get <id>')
    .description('show a project and its policy')
    .action(
      action(async (id: string, _options: unknown, command: Command) => {
        output(command, await apiOf(command).project(id), renderProject);
      }),
    );

  policyOptions(
    projects
      .command('update <id>')
      .description('rename a project or change its policy (keys merge; --unset removes one)')
      .option('--name <name>', 'new display name')
      .option('--unset <key>', 'remove a policy key (repeatable)', collect),
  ).action(
    action(async (id: string, options: PolicyOptions & { name?: string }, command: Command) => {
      const body = { ...(options.name ? { name: options.name } : {}), policy: policyFrom(options) };
      const project = await apiOf(command).updateProject(id, body);
      output(command, project, renderProject);
    }),
  );

  projects
    .command('snapshots <id>')
    .description('list the snapshots kept before each import --replace (admins; fetch one: svc export --snapshot)')
    .action(
      action(async (id: string, _options: unknown, command: Command) => {
        const body = await apiOf(command).projectSnapshots(id);
        output(command, body, (b) =>
          printTable(
            ['snapshot', 'taken', 'by', 'reason', 'items'],
            b.snapshots.map((s) => [s.id, s.taken_at, s.taken_by, s.reason, s.items]),
          ),
        );
      }),
    );
}
