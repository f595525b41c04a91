import { Command, Option } from 'commander';
import { request } from 'undici';

import { clientFor, resolveConnection, GlobalOptions } from '../context';
import { action, output, printTable } from '../output';

interface EventWire {
  id: string;
  name: string;
  kind: string;
  project: string | null;
  item_id: string | null;
  session_id: number | null;
  payload: Record<string, unknown>;
  created_at: string;
}

export function registerEventsCommand(program: Command): void {
  const events = program.command('events').description('recorded events: query them, follow the live stream');

  events
    .command('query')
    .description('recorded events, newest first (FrontierComputed, ChargeDecisionMade, DbClaimAmended, ...)')
    .option('--event-name <name>', 'only events with this name')
    .option('--project <project>', 'only events of this project')
    .option('--item <ref>', 'only events about this item')
    .option('--since <when>', 'ISO 8601 timestamp, or a duration back from now: 30s, 15m, 2h, 7d')
    .addOption(new Option('--limit <n>', 'at most this many (default 100, max 1000)'))
    .action(
      action(async (options: Record<string, string | undefined>, command: Command) => {
        const body = await clientFor(command).get<{ events: EventWire[] }>('v1/events', {
          event_name: options.eventName,
          project: options.project,
          item: options.item,
          since: options.since,
          limit: options.limit,
        });
        output(command, body, (b) =>
          printTable(
            ['id', 'at', 'name', 'project', 'item', 'payload'],
            b.events.map((e) => [e.id, e.created_at, e.name, e.project, e.item_id, JSON.stringify(e.payload)]),
          ),
        );
      }),
    );

  events
    .command('stream')
    .description('follow the live stream (events and item changes from every replica) until interrupted')
    .option('--project <project>', 'only this project')
    .option('--event-name <name>', 'only events with this name (item changes still pass)')
    .action(
      action(async (options: { project?: string; eventName?: string }, command: Command) => {
        const { url, token } = resolveConnection(command.optsWithGlobals<GlobalOptions>());
        const target = new URL('v1/events/stream', url.endsWith('/') ? url : `${url}/`);
        if (options.project) target.searchParams.set('project', options.project);
        if (options.eventName) target.searchParams.set('event_name', options.eventName);
        const res = await request(target, {
          headers: { accept: 'text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        });
        if (res.statusCode !== 200) throw new Error(`stream refused: HTTP ${res.statusCode} ${await res.body.text()}`);
        for await (const chunk of res.body) process.stdout.write(chunk as Buffer);
      }),
    );
}
