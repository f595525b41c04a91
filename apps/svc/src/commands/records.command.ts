import { Command, Option } from 'commander';

import type { OuroborosListQuery } from '@app/contracts';

import { apiOf } from '../context';
import { action, output, printKeyValues, printTable } from '../output';
import { parseIntOption } from './backlog-cli';

export function registerRecordsCommand(program: Command): void {
  const records = program.command('records').description('shepherd verdicts, caveat dispositions, ouroboros entries');

  const verdicts = records.command('verdicts').description('shepherd verdicts');
  verdicts
    .command('add <ref>')
    .description('record a shepherd verdict on a transition of an item')
    .requiredOption('--transition <name>', 'e.g. refined-idea->planned')
    .requiredOption('--worker <name>', 'who judged')
    .requiredOption('--verdict <verdict>', 'e.g. APPROVED, CHANGES_REQUESTED')
    .option('--caveats <text>', 'caveats text')
    .option('--attempt <n>', 'attempt (default 1)', parseIntOption)
    .action(
      action(
        async (
          item: string,
          o: { transition: string; worker: string; verdict: string; caveats?: string; attempt?: number },
          command: Command,
        ) => {
          const body = await apiOf(command).recordShepherdVerdict({
            item,
            transition: o.transition,
            worker: o.worker,
            verdict: o.verdict,
            ...(o.caveats ? { caveats: o.caveats } : {}),
            ...(o.attempt ? { attempt: o.attempt } : {}),
          });
          output(command, body, (b) => printKeyValues(Object.entries(b)));
        },
      ),
    );
  verdicts
    .command('list [ref]')
    .description("an item's verdicts (all, for admins, without a ref)")
    .action(
      action(async (item: string | undefined, _o: unknown, command: Command) => {
        const body = await apiOf(command).shepherdVerdicts(item);
        output(command, body, (b) =>
          printTable(
            ['id', 'item', 'transition', 'worker', 'verdict', 'attempt'],
            b.verdicts.map((v) => [v.id, v.item, v.transition, v.worker, v.verdict, v.attempt]),
          ),
        );
      }),
    );

  const caveats = records.command('caveats').description('caveat dispositions');
  caveats
    .command('add <ref>')
    .description('record the disposition of one caveat (once per item/transition/attempt/caveat)')
    .requiredOption('--transition <name>', 'transition')
    .requiredOption('--caveat-num <n>', 'caveat number', parseIntOption)
    .requiredOption('--caveat-text <text>', 'the caveat')
    .addOption(new Option('--disposition <d>', 'disposition').choices(['RESOLVED', 'DEFERRED']).makeOptionMandatory())
    .option('--attempt <n>', 'attempt (default 1)', parseIntOption)
    .option('--details <text>', 'resolution details')
    .option('--verdict <id>', 'shepherd verdict id', parseIntOption)
    .action(
      action(
        async (
          item: string,
          o: {
            transition: string;
            caveatNum: number;
            caveatText: string;
            disposition: string;
            attempt?: number;
            details?: string;
            verdict?: number;
          },
          command: Command,
        ) => {
          const body = await apiOf(command).recordCaveatDisposition({
            item,
            transition: o.transition,
            caveat_num: o.caveatNum,
            caveat_text: o.caveatText,
            disposition: o.disposition,
            ...(o.attempt ? { attempt: o.attempt } : {}),
            ...(o.details ? { resolution_details: o.details } : {}),
            ...(o.verdict ? { verdict_id: o.verdict } : {}),
          });
          output(command, body, (b) => printKeyValues(Object.entries(b)));
        },
      ),
    );
  caveats
    .command('list [ref]')
    .description("an item's caveat dispositions")
    .action(
      action(async (item: string | undefined, _o: unknown, command: Command) => {
        const body = await apiOf(command).caveatDispositions(item);
        output(command, body, (b) =>
          printTable(
            ['item', 'transition', 'attempt', 'caveat', 'disposition'],
            b.dispositions.map((d) => [d.item, d.transition, d.attempt, d.caveat_num, d.disposition]),
          ),
        );
      }),
    );

  const ouroboros = records.command('ouroboros').description('ouroboros entries (agent self-observations)');
  ouroboros
    .command('add')
    .description('record an entry')
    .requiredOption('--agent <agent>', 'agent')
    .requiredOption('--category <category>', 'category')
    .requiredOption('--body <text>', 'body')
    .option('--context <text>', 'context')
    .option('--timestamp <iso>', 'when it was observed (default now)')
    .action(
      action(
        async (
          o: { agent: string; category: string; body: string; context?: string; timestamp?: string },
          command: Command,
        ) => {
          const body = await apiOf(command).recordOuroboros({
            agent: o.agent,
            category: o.category,
            body: o.body,
            ...(o.context ? { context: o.context } : {}),
            ...(o.timestamp ? { timestamp: o.timestamp } : {}),
          });
          output(command, body, (b) => printKeyValues(Object.entries(b)));
        },
      ),
    );
  ouroboros
    .command('list')
    .description('list entries, newest first')
    .option('--agent <agent>', 'filter')
    .option('--category <category>', 'filter')
    .addOption(new Option('--reviewed <0|1>', 'filter').choices(['0', '1']))
    .addOption(new Option('--archived <0|1>', 'filter').choices(['0', '1']))
    .option('--limit <n>', 'at most (default 100)', parseIntOption)
    .action(
      action(async (o: OuroborosListQuery, command: Command) => {
        const body = await apiOf(command).ouroboros(o);
        output(command, body, (b) =>
          printTable(
            ['id', 'org', 'timestamp', 'agent', 'category', 'body'],
            b.entries.map((e) => [e.id, e.organization, e.timestamp, e.agent, e.category, e.body] as string[]),
          ),
        );
      }),
    );
  for (const verb of ['review', 'archive'] as const) {
    ouroboros
      .command(`${verb} <id>`)
      .description(`mark an entry ${verb === 'review' ? 'reviewed' : 'archived'}`)
      .action(
        action(async (id: string, _o: unknown, command: Command) => {
          const body = await apiOf(command).ouroborosAction(id, verb);
          output(command, body, (b) => printKeyValues(Object.entries(b)));
        }),
      );
  }
}
