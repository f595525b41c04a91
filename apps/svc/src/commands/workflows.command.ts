import { Command } from 'commander';

import { WorkflowVersionWire } from '@app/contracts/backlog';

import { apiOf } from '../context';
import { action, output, printKeyValues, printTable } from '../output';
import { readJsonFile } from './backlog-cli';

function renderVersion(v: WorkflowVersionWire & { created?: boolean }): void {
  printKeyValues([
    ['workflow', `${v.workflow_id} v${v.version}${v.current ? ' (current)' : ''}`],
    ...(v.created === undefined
      ? []
      : ([['registered', v.created ? 'new version' : 'unchanged']] as [string, unknown][])),
    ['checksum', v.checksum],
    ['initial stage', v.definition.initial_stage],
  ]);
  printTable(
    ['stage', 'adapter', 'entrypoint', 'gates', 'terminal'],
    v.definition.stages.map((s) => [
      s.id,
      s.adapter,
      s.entrypoint,
      s.gates.map((g) => (g.gate_point ? `${g.type}@${g.gate_point}` : g.type)).join(', '),
      s.terminal ? 'yes' : '',
    ]),
  );
}

export function registerWorkflowsCommand(program: Command): void {
  const workflows = program.command('workflows').description('workflow definitions and their immutable versions');

  workflows
    .command('register <file>')
    .description('register a workflow definition (JSON); a changed definition becomes a new version')
    .action(
      action(async (file: string, _options: unknown, command: Command) => {
        const body = await apiOf(command).registerWorkflow(readJsonFile(file));
        output(command, body, renderVersion);
      }),
    );

  workflows
    .command('list')
    .description('list workflows with their current version')
    .action(
      action(async (_options: unknown, command: Command) => {
        const body = await apiOf(command).workflows();
        output(command, body, (b) =>
          printTable(
            ['workflow', 'name', 'current', 'versions'],
            b.workflows.map((w) => [w.workflow_id, w.name, w.current_version, w.versions]),
          ),
        );
      }),
    );

  workflows
    .command('definition')
    .description('current definitions')
    .command('get [workflow]')
    .description('show the current version of a workflow (default: issue)')
    .action(
      action(async (workflow: string | undefined, _options: unknown, command: Command) => {
        const body = await apiOf(command).workflowDefinition(workflow ?? 'issue');
        output(command, body, renderVersion);
      }),
    );

  workflows
    .command('version')
    .description('registered versions')
    .command('get <workflow> <version>')
    .description('show one version of a workflow')
    .action(
      action(async (workflow: string, version: string, _options: unknown, command: Command) => {
        const body = await apiOf(command).workflowVersion(workflow, version);
        output(command, body, renderVersion);
      }),
    );

  workflows
    .command('item')
    .description('the workflow an item is pinned to')
    .command('get <ref>')
    .description("show an item's pinned workflow version and its current stage binding")
    .action(
      action(async (item: string, _options: unknown, command: Command) => {
        const body = await apiOf(command).itemWorkflow(item);
        output(command, body, (b) =>
          printKeyValues([
            ['item', b.item_id],
            ['workflow', `${b.workflow_id} v${b.workflow_version}`],
            ['status', b.status],
            ['adapter', b.stage?.adapter],
            ['entrypoint', b.stage?.entrypoint_rendered],
          ]),
        );
      }),
    );
}
