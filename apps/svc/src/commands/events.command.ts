import { Command, Option } from 'commander';

import { openEventStream, SvcHttpError, terminalLine } from '@app/client';
import { MAX_STREAM_FRONTIER_PROJECTS } from '@app/contracts';
import type { StreamNotice } from '@app/contracts';

import {
  allProjectsOption,
  apiOf,
  connectionFor,
  outputOptions,
  projectOption,
  scopedProject,
  wantsJson,
} from '../context';
import { action, output, printTable, reportError, usageError } from '../output';
import { relativeTime } from '../time';

// Stored text (names, payload values) shows control characters and bidi overrides escaped.
export function noticeLine(notice: StreamNotice): string {
  return terminalLine(rawNoticeLine(notice));
}

function rawNoticeLine(notice: StreamNotice): string {
  const d = notice.data;
  const str = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');
  if (notice.type === 'event') {
    const at = str(d.created_at) || new Date().toISOString();
    return [at, str(d.name), str(d.item_id) || '-', str(d.project) || '-', notice.id ? `#${notice.id}` : '']
      .filter((part) => part.length > 0)
      .join('  ');
  }
  const rest = Object.entries(d)
    .filter(([k]) => k !== 'type')
    .map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
    .join(' ');
  return `${new Date().toISOString()}  ${notice.type}  ${rest}`;
}

export function registerEventsCommand(program: Command): void {
  const events = program.command('events').description('recorded events: query them, follow the live stream');

  events
    .command('query')
    .description('recorded events, newest first (FrontierComputed, ChargeDecisionMade, DbClaimAmended, ...)')
    .option('--event-name <name>', 'only events with this name')
    .addOption(projectOption('only events of this project'))
    .addOption(allProjectsOption())
    .option('--item <ref>', 'only events about this item')
    .option('--since <when>', 'ISO 8601 timestamp, or a duration back from now: 30s, 15m, 2h, 7d')
    .addOption(new Option('--limit <n>', 'at most this many (default 100, max 1000)'))
    .action(
      action(async (options: Record<string, string | undefined>, command: Command) => {
        const body = await apiOf(command).events({
          event_name: options.eventName,
          project: scopedProject(options.project, { allProjects: !!options.allProjects }),
          item: options.item,
          since: options.since,
          limit: options.limit,
        });
        output(command, body, (b) =>
          printTable(
            [
              { header: 'id', keep: true },
              { header: 'at', priority: 4 },
              { header: 'name', priority: 5 },
              { header: 'project', priority: 2 },
              { header: 'item', priority: 3 },
              { header: 'payload', priority: 1, flex: true },
            ],
            b.events.map((e) => [e.id, relativeTime(e.created_at), e.name, e.project, e.item_id, e.payload]),
          ),
        );
      }),
    );

  events
    .command('stream')
    .description('follow the live stream (events and item changes from every replica) until interrupted')
    .addOption(projectOption('only this project'))
    .addOption(allProjectsOption())
    .option('--event-name <name>', 'only events with this name (item changes still pass)')
    .option(
      '--frontier <projects>',
      "the frontier notices (new ETags) of these projects, comma-separated, at most 8 (default: --project's)",
    )
    .action(
      action(
        async (
          options: { project?: string; allProjects?: boolean; eventName?: string; frontier?: string },
          command: Command,
        ) => {
          // --jq filters one JSON document; a stream is NDJSON (one document a line), better filtered downstream
          if (outputOptions().jq !== undefined || outputOptions().jsonFields !== undefined) {
            throw usageError(
              'json_filter_unsupported',
              'the stream takes --json only (NDJSON); --jq and --json fields do not apply',
            );
          }
          const frontier = options.frontier?.split(',').filter((p) => p.length > 0);
          if (frontier && frontier.length > MAX_STREAM_FRONTIER_PROJECTS) {
            throw usageError(
              'invalid_argument',
              `--frontier takes at most ${MAX_STREAM_FRONTIER_PROJECTS} projects (${frontier.length} given)`,
            );
          }
          const json = wantsJson(command);
          const { url, token } = connectionFor(command);
          await new Promise<void>((resolve) => {
            const stream = openEventStream({
              baseUrl: url,
              token,
              project: scopedProject(options.project, { allProjects: options.allProjects }),
              eventName: options.eventName,
              frontier,
              onFrontierRefused: (error) => {
                const problems = Array.isArray(error.body.fields)
                  ? (error.body.fields as { problems?: unknown }[]).flatMap((f) =>
                      Array.isArray(f.problems) ? f.problems.map(String) : [],
                    )
                  : [];
                const why = problems.join('; ') || error.body.message;
                process.stderr.write(
                  `svc: the daemon refused --frontier (${terminalLine(why)}); following without it\n`,
                );
              },
              onNotice: (notice) => process.stdout.write(`${json ? JSON.stringify(notice) : noticeLine(notice)}\n`),
              onStatus: (status, detail) => {
                if (status === 'reconnecting') {
                  const why = detail?.error instanceof Error ? detail.error.message : 'connection lost';
                  process.stderr.write(
                    `svc: stream ${terminalLine(why)}; reconnecting in ${detail?.retryInMs ?? 0} ms\n`,
                  );
                } else if (status === 'closed') {
                  if (detail?.error instanceof SvcHttpError) process.exitCode = reportError(detail.error, json);
                  resolve();
                }
              },
            });
            const stop = () => stream.close();
            process.once('SIGINT', stop);
            process.once('SIGTERM', stop);
          });
        },
      ),
    );
}
