import { Command } from 'commander';

import { changeWhat, changeWho } from '@app/client';
import { HistoryResponse, SessionNoticesResponse } from '@app/contracts';

import { apiOf, projectOption } from '../context';
import { action, output, printTable } from '../output';
import { relativeTime } from '../time';
import { parseIntOption } from './backlog-cli';

function renderHistory(body: HistoryResponse, withItem: boolean): void {
  printTable(
    [
      { header: 'when', keep: true },
      ...(withItem ? [{ header: 'item', priority: 4 }] : []),
      { header: 'who', priority: 3 },
      { header: 'via', priority: 2 },
      { header: 'change', priority: 5, flex: true },
    ],
    body.changes.map((c) => [
      relativeTime(c.at),
      ...(withItem ? [c.item_id ?? c.project ?? ''] : []),
      changeWho(c),
      c.path,
      changeWhat(c),
    ]),
  );
  if (body.next_before) process.stdout.write(`older: --before ${body.next_before}\n`);
}

const limitOption = (command: Command) =>
  command
    .option('--limit <n>', 'at most this many changes (default 50, at most 500)', parseIntOption)
    .option('--before <id>', 'changes older than this record id (the "older:" line of the last page)');

export function addItemHistoryCommand(items: Command): void {
  limitOption(
    items
      .command('history <ref>')
      .description('who changed the item, what (before → after), when and through which path, newest first'),
  ).action(
    action(async (ref: string, options: { limit?: number; before?: string }, command: Command) => {
      const body = await apiOf(command).itemHistory(ref, { limit: options.limit, before: options.before });
      output(command, body, (b) => renderHistory(b, false));
    }),
  );
}

export function registerHistoryCommand(program: Command): void {
  limitOption(
    program
      .command('history')
      .description('the audit log: every change you may see, newest first (items, dependencies, claims, members, …)')
      .addOption(projectOption('changes in this project only'))
      .option('--item <ref>', 'changes of this item only')
      .option('--actor <name>', 'changes made by this actor only')
      .option('--object <kind>', 'one kind of object: item, section, dependency, claim, membership, …'),
  ).action(
    action(
      async (
        options: { project?: string; item?: string; actor?: string; object?: string; limit?: number; before?: string },
        command: Command,
      ) => {
        const body = await apiOf(command).history(options);
        output(command, body, (b) => renderHistory(b, true));
      },
    ),
  );
}

export function renderNotices(body: SessionNoticesResponse): void {
  printTable(
    [
      { header: 'when', keep: true },
      { header: 'item', keep: true },
      { header: 'notice', priority: 3 },
      { header: 'who', priority: 2 },
      { header: 'change', priority: 4, flex: true },
    ],
    [
      ...body.lapsed_claims.map((c) => [relativeTime(c.expired_at), c.item_id, 'claim lapsed', '', 'lease ran out']),
      ...body.notices.map((n) => [
        relativeTime(n.at),
        n.item_id ?? '',
        n.kind === 'claim_lost' ? 'claim lost' : 'changed',
        changeWho(n),
        changeWhat(n),
      ]),
    ],
  );
}
