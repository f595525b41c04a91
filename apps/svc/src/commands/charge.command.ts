import { spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';

import { Command, Option } from 'commander';

import { SvcClient, SvcHttpError } from '@app/client';
import type { ChargeDecisionDetail, ChargeReason, DispatchResponse, ScheduleResponse } from '@app/contracts';

import { clientFor, wantsJson } from '../context';
import { action, CliError, output, printJson, printKeyValues, printTable } from '../output';
import { findWorkspace } from '../workspace';
import { FrontierResultWire, printFrontierRows, wipCapOption } from './frontier.command';

interface Explain {
  item_id: string;
  project: string;
  status: string;
  bucket: 'runnable' | 'blocked' | 'frozen' | 'not_candidate';
  adapter: string | null;
  summary: string[];
}

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
// wait adapter, no entrypoint); 130 the operator declined at the confirmation.
export const CHARGE_EXIT = { ok: 0, refused: 1, cancelled: 130 } as const;
const MAX_DISPATCH_ATTEMPTS = 25;

export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function renderDispatchCommand(template: string, values: Record<string, string>): string {
  return template.replace(/\{(entrypoint|ref|project|adapter)\}/g, (_m, key: string) => shellQuote(values[key] ?? ''));
}

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

function printSchedule(schedule: ScheduleResponse): void {
  printTable(
    ['#', 'item', 'project', 'adapter', 'priority', 'status', 'entrypoint', 'title'],
    schedule.steps.map((s) => [
      s.position,
      s.item_id,
      s.project,
      s.adapter,
      s.priority,
      s.status,
      s.entrypoint ?? (s.wait ? '(wait)' : `(${s.error?.code ?? 'none'})`),
      s.title,
    ]),
  );
}

class ChargeRun {
  private readonly say: (text: string) => void;

  constructor(
    private readonly client: SvcClient,
    private readonly options: ChargeOptions,
    private readonly json: boolean,
    private session: number | null = null,
  ) {
    // With --json the JSON result alone goes to stdout; the conversation goes to stderr.
    this.say = (text) => (json ? process.stderr : process.stdout).write(`${text}\n`);
  }

  private async ensureSession(project: string | null): Promise<number> {
    if (this.session !== null) return this.session;
    const body = await this.client.post<{ session_id: number; lane: string }>('v1/sessions', {
      harness: this.options.harness,
      model: this.options.model,
      ...(project ? { project } : {}),
      label: 'svc charge',
    });
    this.session = body.session_id;
    return body.session_id;
  }

  private async decide(
    decision: Omit<ChargeDecisionDetail, 'dispatched'>,
    exitCode: number,
    extra: Record<string, unknown> = {},
  ) {
    const detail: ChargeDecisionDetail = { ...decision, dispatched: false };
    await this.client.post('v1/charge/decisions', {
      ...detail,
      ...(this.session !== null ? { session_id: this.session } : {}),
    });
    this.finish(detail, exitCode, extra);
  }

  private finish(detail: ChargeDecisionDetail, exitCode: number, extra: Record<string, unknown> = {}): void {
    if (this.json) printJson({ ...detail, session_id: this.session, ...extra });
    else if (!detail.dispatched) this.say(`charge: ${detail.reason}${detail.item_id ? ` (${detail.item_id})` : ''}`);
    process.exitCode = exitCode;
  }

  private schedule(project: string | null): Promise<ScheduleResponse> {
    return this.client.get<ScheduleResponse>('v1/charge/schedule', {
      session_id: this.session ?? undefined,
      project: project ?? undefined,
      wip_cap: this.options.wipCap,
    });
  }

  async run(): Promise<void> {
    const { options } = this;
    const item = options.item?.toUpperCase() ?? null;
    let scope: string | null = options.project ?? null;
    if (!scope && !item) scope = findWorkspace()?.project ?? null;

    if (item) {
      let explain: Explain | null = null;
      try {
        explain = await this.client.get<Explain>(`v1/frontier/explain/${encodeURIComponent(item)}`);
      } catch (err) {
        if (!(err instanceof SvcHttpError) || err.status !== 404 || err.code === 'project_not_found') throw err;
      }
      if (!explain || explain.bucket !== 'runnable') {
        const bucket = explain?.bucket === 'blocked' || explain?.bucket === 'frozen' ? explain.bucket : 'not_found';
        for (const line of explain?.summary ?? [`no item ${item}`]) this.say(`  ${line}`);
        if (explain && bucket === 'not_found') this.say(`${item} is ${explain.status} (not on the frontier)`);
        await this.decide(
          {
            item_id: item,
            adapter: explain?.adapter ?? null,
            reason: 'requested_item_unavailable',
            project: explain?.project ?? null,
            target_bucket: bucket,
          },
          CHARGE_EXIT.refused,
          { item_status: explain?.status ?? null },
        );
        return;
      }
      scope = explain.project;
    }

    await this.ensureSession(scope);
    let schedule = await this.schedule(scope);
    if (!this.json) printSchedule(schedule);

    if (options.dryRun) {
      const top = item ? schedule.steps.find((s) => s.item_id === item) : schedule.steps[0];
      await this.decide(
        {
          item_id: top?.item_id ?? item,
          adapter: top?.adapter ?? null,
          reason: 'dry_run',
          project: top?.project ?? scope,
        },
        CHARGE_EXIT.ok,
        { steps: schedule.steps },
      );
      return;
    }

    for (let attempt = 0; attempt < MAX_DISPATCH_ATTEMPTS; attempt++) {
      const target = item ? schedule.steps.find((s) => s.item_id === item) : schedule.steps[0];
      if (!target) {
        if (item) {
          // runnable, but held by another session's claim, the WIP cap or another lane
          this.say(`${item} is runnable but not offered to this session (claimed elsewhere, WIP cap or lane)`);
          await this.decide(
            {
              item_id: item,
              adapter: null,
              reason: 'requested_item_unavailable',
              project: scope,
              target_bucket: 'blocked',
            },
            CHARGE_EXIT.refused,
          );
          return;
        }
        if (schedule.runnable_elsewhere) {
          this.say(
            `nothing runnable in ${schedule.scope.join(', ')}; runnable elsewhere: ${schedule.runnable_elsewhere
              .map((r) => `${r.project} (${r.runnable})`)
              .join(', ')} — use --project`,
          );
        }
        await this.decide(
          { item_id: null, adapter: null, reason: 'no_runnable_items', project: scope },
          CHARGE_EXIT.refused,
          { runnable_elsewhere: schedule.runnable_elsewhere },
        );
        return;
      }
      const base = { item_id: target.item_id, adapter: target.adapter, project: target.project };
      if (target.wait) {
        this.say(`${target.item_id} has the wait adapter at stage ${target.status}; not dispatched`);
        await this.decide({ ...base, reason: 'wait_adapter_encountered' }, CHARGE_EXIT.refused);
        return;
      }
      if (!target.entrypoint) {
        this.say(`${target.item_id}: entrypoint_unavailable: ${target.error?.recovery ?? ''}`);
        await this.decide({ ...base, reason: 'entrypoint_unavailable' }, CHARGE_EXIT.refused, { error: target.error });
        return;
      }
      if (!options.yes) {
        const answer = await ask(`Dispatch ${target.item_id} (${target.adapter}: ${target.entrypoint})? [y/N] `);
        if (answer === null) this.say('no confirmation on stdin (use --yes in scripts)');
        if (!answer || !/^y(es)?$/i.test(answer.trim())) {
          await this.decide({ ...base, reason: 'operator_cancelled' }, CHARGE_EXIT.cancelled);
          return;
        }
      }
      let result: DispatchResponse;
      try {
        result = await this.client.post<DispatchResponse>('v1/charge/dispatch', {
          session_id: this.session,
          item_id: target.item_id,
          ...(options.wipCap !== undefined ? { wip_cap: Number(options.wipCap) } : {}),
        });
      } catch (err) {
        const retry = err instanceof SvcHttpError && ['item_already_claimed', 'wip_cap_reached'].includes(err.code);
        if (retry && !item) {
          // another session won the race for this item: take the next one
          schedule = await this.schedule(scope);
          continue;
        }
        if (err instanceof SvcHttpError && err.body.decision_recorded === true) {
          this.finish(
            {
              ...base,
              dispatched: false,
              reason: (err.code === 'item_not_runnable' ? 'requested_item_unavailable' : err.code) as ChargeReason,
              target_bucket: err.body.target_bucket as string | undefined,
            },
            CHARGE_EXIT.refused,
            { error: err.body },
          );
          process.stderr.write(`error: ${err.code}: ${err.body.message}\n`);
          return;
        }
        if (retry && item) {
          await this.decide(
            { ...base, reason: 'requested_item_unavailable', target_bucket: 'blocked' },
            CHARGE_EXIT.refused,
            { error: err.body },
          );
          return;
        }
        throw err;
      }
      const dispatcherExit = this.runDispatcher(result);
      this.finish({ ...base, dispatched: true, reason: 'dispatched' }, dispatcherExit, {
        entrypoint: result.entrypoint,
        claim_expires_at: result.claim.expires_at,
      });
      return;
    }
    throw new CliError('dispatch_contended', `no item could be claimed after ${MAX_DISPATCH_ATTEMPTS} attempts`);
  }

  // Dispatch runs on the operator's machine: the configured command template, or print the entrypoint.
  private runDispatcher(result: DispatchResponse): number {
    const template = this.options.dispatchCommand;
    if (!template) {
      this.say(`dispatch: ${result.entrypoint}`);
      return 0;
    }
    const command = renderDispatchCommand(template, {
      entrypoint: result.entrypoint,
      ref: result.item_id,
      project: result.project,
      adapter: result.adapter,
    });
    const child = spawnSync('/bin/sh', ['-c', command], {
      stdio: ['inherit', this.json ? process.stderr : 'inherit', 'inherit'],
    });
    if (child.status !== 0) this.say(`dispatcher exited with ${child.status ?? child.signal}`);
    return child.status ?? 1;
  }
}

export function registerChargeCommand(program: Command): void {
  const charge = program
    .command('charge')
    .description('pick the top runnable item (or --item), confirm, claim it for this session and dispatch it')
    .option('--dry-run', 'show the schedule and stop; nothing is dispatched')
    .option('--item <ref>', 'target this item instead of the top-ranked one')
    .option('--project <project>', 'explicit project scope (default: the checkout project from .svc.json/SVC_PROJECT)')
    .addOption(wipCapOption())
    .option('-y, --yes', 'do not ask for confirmation (scripts)')
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
        'entrypoint unavailable); 130 declined at the confirmation. Every exit records ChargeDecisionMade.',
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
        await new ChargeRun(clientFor(command), options, wantsJson(command), session).run();
      }),
    );

  charge
    .command('schedule')
    .description('charge.schedule: the claim-aware ranked schedule across the projects you can access')
    .addOption(new Option('--session <id>', 'filter by this session: its lane and claims').env('SVC_SESSION_ID'))
    .option('--project <project>', 'one project only')
    .addOption(wipCapOption())
    .action(
      action(async (_options: unknown, command: Command) => {
        // the parent `charge` shares these option names and parses them first
        const options = command.optsWithGlobals<{ session?: string; project?: string; wipCap?: string }>();
        const body = await clientFor(command).get<ScheduleResponse>('v1/charge/schedule', {
          session_id: options.session,
          project: options.project,
          wip_cap: options.wipCap,
        });
        output(command, body, (b) => {
          printKeyValues([
            ['session', b.session_id ? `${b.session_id} (lane ${b.lane})` : '(none: every lane)'],
            ['scope', b.scope.join(', ')],
          ]);
          printSchedule(b);
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
    .option('--project <project>', 'project id (required by the server; it lists your projects when missing)')
    .addOption(wipCapOption())
    .action(
      action(async (options: { project?: string; wipCap?: string }, command: Command) => {
        const body = await clientFor(command).get<FrontierResultWire>('v1/charge/frontier', {
          project: options.project,
          wip_cap: options.wipCap,
        });
        output(command, body, (b) => {
          printKeyValues([
            ['wip', `${b.wip_active} active of ${b.wip_cap}`],
            ['conduct eligible', b.conduct_eligible.map((i) => i.item_id).join(', ')],
          ]);
          printFrontierRows('runnable', b.runnable);
          printFrontierRows('blocked', b.blocked, true);
          printFrontierRows('frozen', b.frozen);
        });
      }),
    );
}
