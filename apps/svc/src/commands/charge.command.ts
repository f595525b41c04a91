import { spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';

import { Command, Option } from 'commander';

import {
  ChargeFlowError,
  entrypointHowTo,
  ChargeFlowIO,
  ChargeOutcome,
  dispatchValues,
  renderDispatchCommand,
  runCharge,
  SvcApi,
  terminalLine,
  terminalSafe,
  terminalText,
} from '@app/client';
import type { ClaimHolder, DispatchResponse, FrontierResultWire, ScheduleResponse, ScheduleStep } from '@app/contracts';

import { paintErr, tone } from '../color';
import {
  allProjectsOption,
  apiOf,
  connectionFor,
  projectNamed,
  projectOption,
  scopedProject,
  wantsJson,
} from '../context';
import { action, CliError, output, printJson, printKeyValues, printTable } from '../output';
import { watchFrontier } from './frontier-watch';
import { claimCell, claimsByItem, printFrontierRows, wipCapOption } from './frontier.command';

interface ChargeOptions {
  dryRun?: boolean;
  item?: string;
  project?: string;
  wipCap?: string;
  yes?: boolean;
  session?: string;
  harness: string;
  model: string;
  dispatchCommand?: string;
}

// Exit codes of `svc charge`: 0 dispatched or dry run; 1 nothing dispatched (no runnable item, item unavailable,
// wait adapter, no entrypoint); 64 (EX_USAGE) no confirmation possible: stdin gave no answer and --yes is absent;
// 130 the operator declined at the confirmation.
export const CHARGE_EXIT = { ok: 0, refused: 1, usage: 64, cancelled: 130 } as const;

function ask(question: string): Promise<string | null> {
  process.stderr.write(question);
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, terminal: false });
    let answered = false;
    rl.once('line', (line) => {
      answered = true;
      rl.close();
      resolve(line);
    });
    rl.once('close', () => {
      if (!answered) resolve(null);
    });
  });
}

function printSchedule(schedule: ScheduleResponse, claims: Map<string, ClaimHolder> = new Map()): void {
  printTable(
    [
      { header: '#', keep: true },
      { header: 'item', keep: true },
      { header: 'project', priority: 2 },
      { header: 'adapter', priority: 3 },
      { header: 'priority', priority: 3 },
      { header: 'status', priority: 2 },
      { header: 'entrypoint', priority: 1, flex: true },
      { header: 'claimed by', priority: 4 },
      { header: 'title', priority: 5, flex: true },
    ],
    schedule.steps.map((s) => [
      s.position,
      s.item_id,
      s.project,
      s.adapter,
      tone(s.priority),
      s.status,
      s.entrypoint ?? (s.wait ? '(wait)' : `(${s.error?.code ?? 'none'})`),
      claimCell(claims.get(s.item_id)),
      s.title,
    ]),
  );
}

// The dispatcher runs the configured template through /bin/sh, or prints the entrypoint.
export function cliChargeIO(options: ChargeOptions, json: boolean): ChargeFlowIO {
  // With --json the JSON result alone goes to stdout; the conversation goes to stderr, control characters escaped.
  const say = (text: string) => (json ? process.stderr : process.stdout).write(`${terminalText(text)}\n`);
  return {
    report: say,
    // --yes (scripts) prints only the outcome; a dry run is the schedule itself
    showSchedule:
      json || (options.yes && !options.dryRun) ? undefined : (schedule) => printSchedule(terminalSafe(schedule)),
    async confirm(target: ScheduleStep): Promise<boolean> {
      if (options.yes) return true;
      const answer = await ask(
        terminalLine(`Dispatch ${target.item_id} (${target.adapter}: ${target.entrypoint})? [y/N] `),
      );
      if (answer === null) {
        process.stderr.write('\n');
        throw new CliError(
          'confirmation_required',
          'no answer on stdin; pass --yes to dispatch without asking (nothing was recorded)',
          CHARGE_EXIT.usage,
        );
      }
      return /^y(es)?$/i.test(answer.trim());
    },
    runDispatcher(result: DispatchResponse): Promise<number> {
      const template = options.dispatchCommand;
      if (!template) {
        say(`dispatch: ${result.entrypoint}`);
        const howTo = entrypointHowTo(result.entrypoint);
        if (howTo) say(`run it ${howTo}`);
        return Promise.resolve(0);
      }
      const child = spawnSync('/bin/sh', ['-c', renderDispatchCommand(template, dispatchValues(result))], {
        stdio: ['inherit', json ? process.stderr : 'inherit', 'inherit'],
      });
      if (child.status !== 0) say(`dispatcher exited with ${child.status ?? child.signal}`);
      return Promise.resolve(child.status ?? 1);
    },
  };
}

export function chargeExitCode(outcome: ChargeOutcome): number {
  const { decision } = outcome;
  if (decision.dispatched) return outcome.dispatcher_exit ?? CHARGE_EXIT.ok;
  if (decision.reason === 'dry_run') return CHARGE_EXIT.ok;
  if (decision.reason === 'operator_cancelled') return CHARGE_EXIT.cancelled;
  return CHARGE_EXIT.refused;
}

async function runChargeCommand(
  api: SvcApi,
  options: ChargeOptions,
  json: boolean,
  session: number | null,
): Promise<void> {
  let outcome: ChargeOutcome;
  try {
    outcome = await runCharge(
      api,
      {
        project: options.project ?? null,
        item: options.item ?? null,
        dryRun: options.dryRun,
        wipCap: options.wipCap !== undefined ? Number(options.wipCap) : undefined,
        session,
        harness: options.harness,
        model: options.model,
        dispatchCommand: options.dispatchCommand ?? null,
        workspaceProject: scopedProject(undefined) ?? null,
      },
      cliChargeIO(options, json),
    );
  } catch (err) {
    if (err instanceof ChargeFlowError) throw new CliError(err.code, err.message);
    throw err;
  }
  const { decision } = outcome;
  if (json) printJson({ ...decision, session_id: outcome.session_id, ...outcome.extra });
  else if (!decision.dispatched) {
    (json ? process.stderr : process.stdout).write(
      `charge: ${tone(terminalLine(decision.reason))}${decision.item_id ? ` (${terminalLine(decision.item_id)})` : ''}\n`,
    );
  }
  if (outcome.error) {
    process.stderr.write(
      `${paintErr().red('error:')} ${terminalLine(outcome.error.code)}: ${terminalLine(outcome.error.message)}\n`,
    );
  }
  process.exitCode = chargeExitCode(outcome);
}

export function registerChargeCommand(program: Command): void {
  const charge = program
    .command('charge')
    .description('pick the top runnable item (or --item), confirm, claim it for this session and dispatch it')
    .option('--dry-run', 'show the schedule and stop; nothing is dispatched')
    .option('--item <ref>', 'target this item instead of the top-ranked one')
    .addOption(projectOption('project scope; --item alone charges that item wherever it lives'))
    .addOption(wipCapOption('charge'))
    .option('-y, --yes', 'do not ask for confirmation; print only the outcome, not the schedule (scripts)')
    .addOption(new Option('--session <id>', 'executor session id (default: register one)').env('SVC_SESSION_ID'))
    .addOption(new Option('--harness <harness>', 'executor harness of a new session').env('SVC_HARNESS').default('cli'))
    .addOption(new Option('--model <model>', 'executor model of a new session').env('SVC_MODEL').default('unknown'))
    .addOption(
      new Option(
        '--dispatch-command <template>',
        'shell command run to dispatch, with {entrypoint} {ref} {project} {adapter} (default: print the entrypoint)',
      ).env('SVC_DISPATCH_COMMAND'),
    )
    .addHelpText(
      'after',
      '\nExit codes: 0 dispatched or dry run; 1 nothing dispatched (no runnable item, item unavailable, wait adapter,\n' +
        'entrypoint unavailable); 64 no confirmation: stdin gave no answer and --yes is absent (usage error; nothing\n' +
        'is recorded); 130 declined at the confirmation. Every other exit records ChargeDecisionMade. The executor\n' +
        'session is registered only right before a dispatch: dry runs and cancelled charges register none.',
    )
    .action(
      action(async (options: ChargeOptions, command: Command) => {
        if (options.wipCap !== undefined && !/^[0-9]+$/.test(options.wipCap)) {
          throw new CliError('validation_failed', '--wip-cap must be a whole number');
        }
        const session = options.session ? Number(options.session) : null;
        if (session !== null && !Number.isInteger(session)) {
          throw new CliError('validation_failed', '--session must be a session id');
        }
        // a scope filled in from SVC_PROJECT/.svc.json yields to --item's own project (see runCharge)
        const named = projectNamed(command) ? options.project : undefined;
        await runChargeCommand(apiOf(command), { ...options, project: named }, wantsJson(command), session);
      }),
    );

  charge
    .command('schedule')
    .description('charge.schedule: the claim-aware ranked schedule across the projects you can access')
    .addOption(new Option('--session <id>', 'filter by this session: its lane and claims').env('SVC_SESSION_ID'))
    .addOption(projectOption('one project only'))
    .addOption(allProjectsOption())
    .addOption(wipCapOption('charge'))
    .action(
      action(async (_options: unknown, command: Command) => {
        // the parent `charge` shares these option names and parses them first
        const options = command.optsWithGlobals<{
          session?: string;
          project?: string;
          allProjects?: boolean;
          wipCap?: string;
        }>();
        const api = apiOf(command);
        const body = await api.schedule({
          session_id: options.session,
          project: scopedProject(options.project, { allProjects: options.allProjects }),
          wip_cap: options.wipCap,
        });
        const claims = wantsJson(command)
          ? new Map<string, ClaimHolder>()
          : await claimsByItem(
              api,
              body.steps.map((s) => s.project),
            );
        output(command, body, (b) => {
          printKeyValues([
            ['session', b.session_id ? `${b.session_id} (lane ${b.lane})` : '(none: every lane)'],
            ['scope', b.scope.join(', ')],
          ]);
          printSchedule(b, claims);
          if (b.runnable_elsewhere) {
            process.stdout.write(
              `runnable elsewhere: ${b.runnable_elsewhere.map((r) => `${r.project} (${r.runnable})`).join(', ')}\n`,
            );
          }
        });
      }),
    );

  program
    .command('charge-frontier')
    .description('the charge frontier of a project (GET /v1/charge/frontier): runnable, blocked, frozen, WIP')
    .addOption(projectOption('project id (when none is named anywhere, the daemon lists your projects)'))
    .addOption(wipCapOption())
    .option('-w, --watch', 'redraw on every change (follows the event stream; Ctrl-C stops, exit 130)')
    .action(
      action(async (options: { project?: string; wipCap?: string; watch?: boolean }, command: Command) => {
        const api = apiOf(command);
        const project = scopedProject(options.project);
        const json = wantsJson(command);
        // who holds each claim: read for tables only, so --json stays the HTTP body
        const render = async (b: FrontierResultWire) => {
          const rows = [...b.runnable, ...b.blocked, ...b.frozen];
          const claims = json
            ? new Map<string, ClaimHolder>()
            : await claimsByItem(api, project ? [project] : rows.map((r) => r.project));
          printKeyValues([
            ['wip', `${b.wip_active} active of ${b.wip_cap}`],
            ['conduct eligible', b.conduct_eligible.map((i) => i.item_id).join(', ')],
          ]);
          printFrontierRows('runnable', b.runnable, false, claims);
          printFrontierRows('blocked', b.blocked, true, claims);
          printFrontierRows('frozen', b.frozen, false, claims);
        };
        if (options.watch) {
          const { url, token } = connectionFor(command);
          process.exitCode = await watchFrontier({ api, url, token, project, wipCap: options.wipCap, json, render });
          return;
        }
        const read = await api.frontier({ project, wip_cap: options.wipCap });
        if (read.notModified) return; // never without an etag
        if (json) printJson(read.body);
        else await render(terminalSafe(read.body));
      }),
    );
}
