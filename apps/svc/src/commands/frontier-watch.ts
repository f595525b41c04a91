import {
  FrontierMirror,
  FrontierNoticeTracker,
  isHttpError,
  noticeEtagFor,
  openEventStream,
  SvcApi,
  terminalLine,
  terminalSafe,
} from '@app/client';
import type { FrontierResultWire, StreamNotice } from '@app/contracts';

import { paint } from '../color';
import { reportError } from '../output';

export interface WatchOptions {
  api: SvcApi;
  url: string;
  token: string | null;
  project: string | undefined;
  wipCap: string | undefined;
  json: boolean;
  render(body: FrontierResultWire): void | Promise<void>;
}

// Reading the frontier records FrontierComputed: following it would redraw forever.
export function changesFrontier(notice: StreamNotice): boolean {
  return !(notice.type === 'event' && notice.data.name === 'FrontierComputed');
}

// A frontier notice naming the ETag drawn fetches nothing (with --wip-cap its ETag is another answer's, so it counts
// as a change of unknown ETag); one request in flight, changes meanwhile make one more after it.
export async function watchFrontier(options: WatchOptions): Promise<number> {
  const tty = Boolean(process.stdout.isTTY) && !options.json;
  const project = options.project;

  const draw = async (body: FrontierResultWire) => {
    if (options.json) {
      process.stdout.write(`${JSON.stringify(body)}\n`);
      return;
    }
    const header = `${terminalLine(project ?? '')} · ${new Date().toLocaleTimeString()} · watching for changes${tty ? ' (Ctrl-C stops)' : ''}`;
    if (tty) process.stdout.write('\x1b[H\x1b[2J');
    process.stdout.write(`${paint().dim(`── ${header}`)}\n`);
    // not through output(): the body is made terminal-safe here
    await options.render(terminalSafe(body));
    if (!tty) process.stdout.write('\n');
  };

  // The first read fails like the plain command (project_required lists the projects).
  const first = await options.api.frontier({ project, wip_cap: options.wipCap });
  let drawing: Promise<void> = Promise.resolve();
  const mirror = new FrontierMirror(options.api, { project: project ?? '', wip_cap: options.wipCap }, (change) => {
    drawing = drawing.then(() => draw(change.answer));
  });
  if (!first.notModified) mirror.seed(first.body, first.etag);
  await drawing;

  return new Promise<number>((resolve) => {
    let finished = false;

    const finish = (code: number) => {
      if (finished) return;
      finished = true;
      stream.close();
      resolve(code);
    };

    const refresh = async (etag: string | null) => {
      try {
        await mirror.notice(etag);
        await drawing;
      } catch (err) {
        if (isHttpError(err, 401) || isHttpError(err, 403) || isHttpError(err, 404)) {
          finish(reportError(err, options.json));
        } else {
          process.stderr.write(
            `svc: ${terminalLine(err instanceof Error ? err.message : String(err))}; retrying on the next change\n`,
          );
        }
      }
    };

    const schedule = (etag: string | null = null) => {
      if (!finished) void refresh(etag);
    };
    const notices = new FrontierNoticeTracker();

    const stream = openEventStream({
      baseUrl: options.url,
      token: options.token,
      // the `project` filter also asks for that project's frontier notices (no `frontier` parameter needed)
      project,
      onNotice: (notice) => {
        const move = changesFrontier(notice) ? notices.move(notice) : null;
        if (move !== null && (move.project === null || move.project === project)) {
          schedule(noticeEtagFor(mirror.query, move.etag));
        }
      },
      onStatus: (status, detail) => {
        if (status === 'open') {
          notices.reset();
          // changes between the last read and this (re)connection were not followed: read once more (a 304 when
          // nothing changed draws nothing)
          schedule();
        } else if (status === 'reconnecting') {
          const why = detail?.error instanceof Error ? detail.error.message : 'connection lost';
          process.stderr.write(`svc: stream ${terminalLine(why)}; reconnecting in ${detail?.retryInMs ?? 0} ms\n`);
        } else if (status === 'closed' && !finished) {
          finish(detail?.error ? reportError(detail.error, options.json) : 0);
        }
      },
    });

    process.once('SIGINT', () => finish(130));
    process.once('SIGTERM', () => finish(143));
  });
}
