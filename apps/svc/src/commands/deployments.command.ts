import { Command, InvalidArgumentError, Option } from 'commander';

import type { RunWire } from '@app/contracts';

import { apiOf } from '../context';
import { action, output, printKeyValues, printTable } from '../output';
import { parseIntOption } from './backlog-cli';

const RUN_STATUSES = ['pending', 'running', 'halted', 'succeeded', 'failed', 'cancelled'];

// --stages: names, comma-separated, or a JSON array whose stages may be objects naming an approval and capabilities
// ('["build", {"name": "production", "approval": true, "capabilities": ["kubectl"]}]'); the daemon validates them.
export function parseStages(value: string): unknown[] {
  if (!value.trimStart().startsWith('[')) return value.split(',').filter(Boolean);
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new InvalidArgumentError('must be comma-separated names or a JSON array');
  }
  if (!Array.isArray(parsed)) throw new InvalidArgumentError('must be comma-separated names or a JSON array');
  return parsed;
}

// --capabilities docker,kubectl: what the environment/runner has now ('' declares none)
export function parseCapabilities(value: string): string[] {
  return value
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean);
}

export function stageLabel(stage: unknown): string {
  if (typeof stage === 'string') return stage;
  const s = (stage ?? {}) as { name?: string; environment?: string; approval?: unknown; capabilities?: string[] };
  const gates: string[] = [];
  if (s.approval === true || (typeof s.approval === 'object' && s.approval !== null)) {
    gates.push((s.approval as { role?: string }).role === 'admin' ? 'admin approval' : 'approval');
  }
  if (s.capabilities?.length) gates.push(`needs ${s.capabilities.join(', ')}`);
  const name = s.name ?? s.environment ?? '?';
  return gates.length > 0 ? `${name} (${gates.join('; ')})` : name;
}

function haltText(run: RunWire): string {
  return run.halt?.summary ?? '';
}

export function registerDeploymentsCommand(program: Command): void {
  const deployments = program.command('deployments').description('deployment flows, environments and runs');

  const flows = deployments.command('flows').description('deployment flows');
  flows
    .command('create <id>')
    .description('create a deployment flow of a project')
    .requiredOption('--project <project>', 'project')
    .requiredOption(
      '--stages <stages>',
      'stage names in order, comma-separated, or a JSON array of stages: ' +
        '\'["build", {"name": "production", "approval": true, "capabilities": ["kubectl"]}]\' ' +
        '(approval: true or {"role": "admin"})',
      parseStages,
    )
    .option('--name <name>', 'display name (default: the id)')
    .option('--target-tier <tier>', 'target tier')
    .option('--done <text>', 'what done means for this flow')
    .option('--done-before-complete', "let the flow's items reach done before their run completes")
    .action(
      action(
        async (
          id: string,
          o: {
            project: string;
            stages: unknown[];
            name?: string;
            targetTier?: string;
            done?: string;
            doneBeforeComplete?: boolean;
          },
          command: Command,
        ) => {
          const body = await apiOf(command).createDeploymentFlow({
            id,
            project: o.project,
            name: o.name ?? id,
            stages: o.stages,
            ...(o.targetTier ? { target_tier: o.targetTier } : {}),
            ...(o.done ? { done_description: o.done } : {}),
            ...(o.doneBeforeComplete ? { complete_before_done: false } : {}),
          });
          output(command, body, (b) => printKeyValues(Object.entries(b)));
        },
      ),
    );
  flows
    .command('list')
    .requiredOption('--project <project>', 'project')
    .description("a project's deployment flows")
    .action(
      action(async (o: { project: string }, command: Command) => {
        const body = await apiOf(command).deploymentFlows(o.project);
        output(command, body, (b) =>
          printTable(
            ['flow', 'name', 'stages', 'tier'],
            b.flows.map((f) => [f.id, f.name, f.stages.map(stageLabel).join(' → '), f.target_tier]),
          ),
        );
      }),
    );

  const environments = deployments.command('environments').description('registered environments');
  environments
    .command('register <name>')
    .description('register an environment for a project (fact:deployed:<name> needs it)')
    .requiredOption('--project <project>', 'project')
    .option('--tier <tier>', 'tier')
    .option('--flow <flow>', 'deployment flow')
    .action(
      action(async (name: string, o: { project: string; tier?: string; flow?: string }, command: Command) => {
        const body = await apiOf(command).createEnvironment({
          project: o.project,
          name,
          ...(o.tier ? { tier: o.tier } : {}),
          ...(o.flow ? { flow_id: o.flow } : {}),
        });
        output(command, body, (b) => printKeyValues(Object.entries(b)));
      }),
    );
  environments
    .command('list')
    .requiredOption('--project <project>', 'project')
    .description("a project's environments")
    .action(
      action(async (o: { project: string }, command: Command) => {
        const body = await apiOf(command).environments(o.project);
        output(command, body, (b) =>
          printTable(
            ['environment', 'tier', 'flow', 'retired'],
            b.environments.map((e) => [e.name, e.tier, e.flow_id, e.retired_at]),
          ),
        );
      }),
    );
  environments
    .command('retire <name>')
    .requiredOption('--project <project>', 'project')
    .description('retire an environment (it stops satisfying fact:deployed; admins only)')
    .action(
      action(async (name: string, o: { project: string }, command: Command) => {
        const body = await apiOf(command).retireEnvironment(o.project, name);
        output(command, body, (b) => printKeyValues(Object.entries(b)));
      }),
    );
  environments
    .command('unretire <name>')
    .requiredOption('--project <project>', 'project')
    .description('bring a retired environment back (admins only)')
    .action(
      action(async (name: string, o: { project: string }, command: Command) => {
        const body = await apiOf(command).unretireEnvironment(o.project, name);
        output(command, body, (b) => printKeyValues(Object.entries(b)));
      }),
    );

  const runs = deployments.command('runs').description('deployment runs');
  runs
    .command('create')
    .description('record a deployment run carrying items')
    .requiredOption('--project <project>', 'project')
    .requiredOption('--environment <name>', 'target environment')
    .requiredOption('--items <refs>', 'carried item refs, comma-separated')
    .option('--flow <flow>', 'deployment flow')
    .addOption(new Option('--status <status>', 'status (default running)').choices(RUN_STATUSES))
    .option('--stage <stage>', 'current stage')
    .option('--stage-index <n>', 'stage index', parseIntOption)
    .option('--stage-count <n>', 'stage count (default: the flow length)', parseIntOption)
    .option('--qa <summary>', 'QA summary')
    .option(
      '--capabilities <names>',
      'capabilities the environment/runner has, comma-separated (a stage needing others halts)',
      parseCapabilities,
    )
    .action(
      action(
        async (
          o: {
            project: string;
            environment: string;
            items: string;
            flow?: string;
            status?: string;
            stage?: string;
            stageIndex?: number;
            stageCount?: number;
            qa?: string;
            capabilities?: string[];
          },
          command: Command,
        ) => {
          const body = await apiOf(command).createDeploymentRun({
            project: o.project,
            environment: o.environment,
            items: o.items.split(',').filter(Boolean),
            ...(o.flow ? { flow_id: o.flow } : {}),
            ...(o.status ? { status: o.status } : {}),
            ...(o.stage ? { current_stage: o.stage } : {}),
            ...(o.stageIndex !== undefined ? { stage_index: o.stageIndex } : {}),
            ...(o.stageCount !== undefined ? { stage_count: o.stageCount } : {}),
            ...(o.qa ? { qa_summary: o.qa } : {}),
            ...(o.capabilities ? { capabilities: o.capabilities } : {}),
          });
          output(command, body, (b) => printKeyValues(Object.entries(b)));
        },
      ),
    );
  runs
    .command('update <id>')
    .description('advance or finish a run (the usher step; re-sent after a halt it continues when the gate passes)')
    .addOption(new Option('--status <status>', 'status').choices(RUN_STATUSES))
    .option('--stage <stage>', 'current stage')
    .option('--stage-index <n>', 'stage index, counted from 1', parseIntOption)
    .option('--qa <summary>', 'QA summary')
    .option('--blocked-reason <text>', 'pipeline block reason')
    .option(
      '--capabilities <names>',
      'capabilities the environment/runner has now, comma-separated (replaces what the run declared)',
      parseCapabilities,
    )
    .action(
      action(
        async (
          id: string,
          o: {
            status?: string;
            stage?: string;
            stageIndex?: number;
            qa?: string;
            blockedReason?: string;
            capabilities?: string[];
          },
          command: Command,
        ) => {
          const body = await apiOf(command).updateDeploymentRun(id, {
            ...(o.status ? { status: o.status } : {}),
            ...(o.stage ? { current_stage: o.stage } : {}),
            ...(o.stageIndex !== undefined ? { stage_index: o.stageIndex } : {}),
            ...(o.qa ? { qa_summary: o.qa } : {}),
            ...(o.blockedReason ? { blocked_reason: o.blockedReason } : {}),
            ...(o.capabilities ? { capabilities: o.capabilities } : {}),
          });
          output(command, body, (b) => printKeyValues(Object.entries(b)));
        },
      ),
    );
  runs
    .command('resume <id>')
    .description(
      'continue a halted run at its stage once the gate passes (the capability fixed, or the approval given)',
    )
    .option(
      '--capabilities <names>',
      'capabilities the environment/runner has now, comma-separated (default: what the run last declared)',
      parseCapabilities,
    )
    .action(
      action(async (id: string, o: { capabilities?: string[] }, command: Command) => {
        const body = await apiOf(command).resumeDeploymentRun(
          id,
          o.capabilities ? { capabilities: o.capabilities } : {},
        );
        output(command, body, (b) => {
          printKeyValues(Object.entries(b));
          process.stdout.write(`resumed run ${b.id} at ${String(b.current_stage)}\n`);
        });
      }),
    );
  runs
    .command('list')
    .requiredOption('--project <project>', 'project')
    .description("a project's deployment runs")
    .action(
      action(async (o: { project: string }, command: Command) => {
        const body = await apiOf(command).deploymentRuns(o.project);
        output(command, body, (b) =>
          printTable(
            ['run', 'environment', 'status', 'stage', 'items', 'halt'],
            b.runs.map((r) => [
              r.id,
              r.environment,
              r.status,
              r.current_stage,
              r.carried_work.items.join(','),
              haltText(r),
            ]),
          ),
        );
      }),
    );
}
