import { Command, Option } from 'commander';

import { DEFAULT_SESSIONS_LIMIT, MAX_SESSIONS_LIMIT, SESSION_STATES } from '@app/contracts';
import type { RegisterSessionResponse, SessionResponse } from '@app/contracts';

import { allProjectsOption, apiOf, projectOption, scopedProject } from '../context';
import { action, output, printKeyValues, printTable } from '../output';
import { relativeTime } from '../time';
import { renderNotices } from './history.command';

// register answers with the lane's source; show and end do not.
export type SessionWire = SessionResponse & Partial<Pick<RegisterSessionResponse, 'lane_source'>>;

function render(s: SessionWire): void {
  printKeyValues([
    ['session', s.session_id],
    ['executor', `${s.harness} / ${s.model}`],
    ['project', s.project],
    ['lane', s.lane_source ? `${s.lane} (${s.lane_source})` : s.lane],
    ['label', s.label],
  ]);
  if (s.claims.length > 0) {
    printTable(
      ['claimed item', 'project', 'adapter', 'expires'],
      s.claims.map((c) => [c.item_id, c.project, c.adapter, relativeTime(c.expires_at)]),
    );
  }
}

export function registerSessionsCommand(program: Command): void {
  const sessions = program.command('sessions').description('executor sessions: list, register, heartbeat, show, end');

  sessions
    .command('register')
    .description("register an executor session; its lane comes from the project's session routing")
    .addOption(
      new Option('--harness <harness>', 'executor harness, e.g. claude-code').env('SVC_HARNESS').default('cli'),
    )
    .addOption(new Option('--model <model>', 'executor model').env('SVC_MODEL').default('unknown'))
    .addOption(projectOption('project whose session routing decides the lane'))
    .option('--label <label>', 'free text shown in listings')
    .action(
      action(
        async (options: { harness: string; model: string; project?: string; label?: string }, command: Command) => {
          const body = await apiOf(command).registerSession({ ...options, project: scopedProject(options.project) });
          output(command, body, render);
        },
      ),
    );

  sessions
    .command('list')
    .description("your executor sessions (an admin sees everyone's), newest first, with their live claims")
    .addOption(projectOption('sessions registered for this project'))
    .addOption(allProjectsOption())
    .option('--harness <harness>', 'sessions of this harness only')
    .addOption(new Option('--state <state>', 'live (not ended), ended, or all').choices(SESSION_STATES).default('live'))
    .option('--limit <n>', `at most this many (default ${DEFAULT_SESSIONS_LIMIT}, max ${MAX_SESSIONS_LIMIT})`)
    .action(
      action(
        async (
          options: { project?: string; allProjects?: boolean; harness?: string; state: string; limit?: string },
          command: Command,
        ) => {
          const body = await apiOf(command).listSessions({
            project: scopedProject(options.project, { allProjects: options.allProjects }),
            harness: options.harness,
            state: options.state,
            limit: options.limit,
          });
          output(command, body, (b) =>
            printTable(
              ['session', 'executor', 'project', 'lane', 'claims', 'last seen', 'ended', 'label'],
              b.sessions.map((s) => [
                s.session_id,
                `${s.harness} / ${s.model}`,
                s.project,
                s.lane,
                s.claims.map((c) => c.item_id).join(', '),
                relativeTime(s.last_seen_at),
                s.ended_at ? relativeTime(s.ended_at) : '',
                s.label,
              ]),
            ),
          );
        },
      ),
    );

  sessions
    .command('show <id>')
    .description('a session and its live claims')
    .action(
      action(async (id: string, _options: unknown, command: Command) => {
        output(command, await apiOf(command).session(id), render);
      }),
    );

  sessions
    .command('notices <id>')
    .description(
      "claims the session lost (lease lapsed and taken, released by an admin) and others' changes to what it holds",
    )
    .option('--after <record>', 'only notices after this change record id')
    .action(
      action(async (id: string, options: { after?: string }, command: Command) => {
        output(command, await apiOf(command).sessionNotices(id, options.after ?? '0'), renderNotices);
      }),
    );

  sessions
    .command('heartbeat <id>')
    .description("renew the session's live claims (they expire when not renewed)")
    .action(
      action(async (id: string, _options: unknown, command: Command) => {
        const body = await apiOf(command).heartbeat(id);
        output(command, body, (b) =>
          printTable(
            ['renewed claim', 'expires'],
            b.renewed.map((c) => [c.item_id, relativeTime(c.expires_at)]),
          ),
        );
      }),
    );

  sessions
    .command('end <id>')
    .description('end a session and release its claims')
    .action(
      action(async (id: string, _options: unknown, command: Command) => {
        output(command, await apiOf(command).endSession(id), render);
      }),
    );
}
