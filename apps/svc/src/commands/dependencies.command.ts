import { Command, Option } from 'commander';

import { DEPENDENCY_SOURCES, GATE_POINTS, GateEvaluationWire } from '@app/contracts/backlog';

import { apiOf } from '../context';
import { action, CliError, output, printKeyValues, printTable } from '../output';
import { jsonObjectOption, parseIntOption, printText } from './backlog-cli';

function renderEvaluation(e: GateEvaluationWire): void {
  printText(`${e.item_id} at ${e.gate_point}: ${e.satisfied ? 'satisfied' : `${e.blockers.length} unsatisfied`}`);
  if (e.blockers.length > 0) {
    printTable(
      ['blocker', 'satisfaction', 'status', 'reason', 'need'],
      e.blockers.map((b) => [b.blocker, b.satisfaction, b.blocker_status, b.reason, b.need]),
    );
  }
}

export function addDependencyCommands(items: Command): void {
  const dependency = items.command('dependency').description('dependencies between items (by public ref)');

  dependency
    .command('add <dependent> <blocker>')
    .description('declare that <dependent> waits on <blocker>; re-declaring an edge is a no-op')
    .addOption(new Option('--gate-point <gate>', 'gate point').choices(GATE_POINTS).default('activation'))
    .option('--satisfaction <form>', 'status:<stage>, fact:merged or fact:deployed:<env>', 'status:done')
    .addOption(new Option('--source <source>', 'who declared it').choices(DEPENDENCY_SOURCES).default('operator'))
    .option('--rationale <text>', 'why')
    .option('--evidence <json>', 'evidence JSON object', jsonObjectOption)
    .option('--session <id>', 'session id', parseIntOption)
    .action(
      action(
        async (
          dependent: string,
          blocker: string,
          options: {
            gatePoint: string;
            satisfaction: string;
            source: string;
            rationale?: string;
            evidence?: Record<string, unknown>;
            session?: number;
          },
          command: Command,
        ) => {
          const body = await apiOf(command).addDependency(dependent, {
            blocker,
            gate_point: options.gatePoint,
            satisfaction: options.satisfaction,
            source: options.source,
            ...(options.rationale === undefined ? {} : { rationale: options.rationale }),
            ...(options.evidence === undefined ? {} : { evidence: options.evidence }),
            ...(options.session === undefined ? {} : { session_id: options.session }),
          });
          output(command, body, (b) =>
            printText(
              `${b.dependency.dependent} waits on ${b.dependency.blocker} at ${b.dependency.gate_point} ` +
                `(${b.dependency.satisfaction})${b.created ? '' : ' — already declared, unchanged'}`,
            ),
          );
        },
      ),
    );

  dependency
    .command('list <ref>')
    .description("an item's edges in both directions, with the counterpart and whether each is satisfied")
    .addOption(new Option('--direction <direction>', 'filter').choices(['depends_on', 'blocks', 'both']))
    .addOption(new Option('--gate-point <gate>', 'filter').choices(GATE_POINTS))
    .action(
      action(async (item: string, options: { direction?: string; gatePoint?: string }, command: Command) => {
        const body = await apiOf(command).dependencies(item, {
          direction: options.direction,
          gate_point: options.gatePoint,
        });
        output(command, body, (b) =>
          printTable(
            ['direction', 'other_item', 'title', 'gate_point', 'satisfaction', 'satisfied', 'reason', 'rationale'],
            b.dependencies.map((d) => [
              d.direction,
              d.other_item,
              d.other_title,
              d.gate_point,
              d.satisfaction,
              d.satisfied,
              d.reason,
              d.rationale,
            ]),
          ),
        );
      }),
    );

  dependency
    .command('remove <dependent> <blocker>')
    .description('remove an edge (an operator decision)')
    .addOption(new Option('--gate-point <gate>', 'gate point').choices(GATE_POINTS).default('activation'))
    .action(
      action(async (dependent: string, blocker: string, options: { gatePoint: string }, command: Command) => {
        const body = await apiOf(command).removeDependency(dependent, blocker, { gate_point: options.gatePoint });
        output(command, body, (b) =>
          printText(`removed: ${b.dependent} no longer waits on ${b.blocker} at ${b.gate_point}`),
        );
      }),
    );
}

function gatePoint(value: string): string {
  if (!(GATE_POINTS as readonly string[]).includes(value)) {
    throw new CliError('invalid_argument', `gate point must be one of ${GATE_POINTS.join(', ')}`);
  }
  return value;
}

export function registerGateCommands(program: Command): void {
  program
    .command('evaluate-gate <ref> <gate-point>')
    .description('evaluate one item at a gate point, with detail per unsatisfied dependency')
    .action(
      action(async (item: string, gate: string, _options: unknown, command: Command) => {
        const body = await apiOf(command).evaluateGate({
          item,
          gate_point: gatePoint(gate),
        });
        output(command, body, renderEvaluation);
      }),
    );

  program
    .command('plan-candidates <gate-point> <refs...>')
    .description('order candidate items topologically at a gate point; blocked ones with detail')
    .action(
      action(async (gate: string, refs: string[], _options: unknown, command: Command) => {
        const body = await apiOf(command).planCandidates({
          gate_point: gatePoint(gate),
          items: refs,
        });
        output(command, body, (b) => {
          printKeyValues([['eligible (in order)', b.eligible.join(', ')]]);
          printTable(
            ['blocked', 'reasons'],
            b.blocked.map((x) => [x.item_id, x.reasons.join('\n')]),
          );
        });
      }),
    );

  program
    .command('evaluate-gates <gate-point> [refs...]')
    .description('batch gate evaluation: the given items, or every open item of --project')
    .option('--project <project>', 'evaluate every non-terminal item of the project')
    .action(
      action(async (gate: string, refs: string[], options: { project?: string }, command: Command) => {
        const body = await apiOf(command).evaluateGates({
          gate_point: gatePoint(gate),
          ...(options.project ? { project: options.project } : { items: refs }),
        });
        output(command, body, (b) =>
          printTable(
            ['item', 'satisfied', 'blockers'],
            b.evaluations.map((e) => [e.item_id, e.satisfied, e.blockers.map((x) => x.reason).join('\n')]),
          ),
        );
      }),
    );
}
