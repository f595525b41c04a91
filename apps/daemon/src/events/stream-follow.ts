import { MAX_STREAM_FRONTIER_PROJECTS } from '@app/contracts';

import { PROJECT_ID_PATTERN } from '../projects/dto/projects.dto';

// Which projects' frontier notices (`event: frontier`, frontier/read-path/frontier-notices.ts) an open stream
// receives. The notices are computed on each replica for the projects some stream there follows, so a stream follows
// only the projects it names: an administrator's filterless stream (the TUI's) must not make every replica compute
// every project written to.

export const FRONTIER_NOTICE = 'frontier';
export const MAX_FRONTIER_PROJECTS = MAX_STREAM_FRONTIER_PROJECTS;

// The `frontier` query parameter: project ids separated by commas, at most MAX_FRONTIER_PROJECTS; empty: none.
const ID = PROJECT_ID_PATTERN.source.replace(/^\^|\$$/g, '');
export const FRONTIER_PARAM_PATTERN = new RegExp(`^(${ID}(,${ID}){0,${MAX_FRONTIER_PROJECTS - 1}})?$`);

// The projects a stream asked frontier notices for: those `frontier` names when given (within the `project` filter,
// whose notices alone the stream receives), else the `project` filter's project, else none.
export function frontierProjectsOf(query: { project?: string; frontier?: string }): ReadonlySet<string> {
  if (query.frontier === undefined) return new Set(query.project ? [query.project] : []);
  const named = query.frontier.split(',').filter((p) => p.length > 0);
  return new Set(query.project ? named.filter((p) => p === query.project) : named);
}

// Whether a stream follows a project's frontier: it asked for it and its caller may see it now (`visible` is the
// caller's latest visibility, null: every project).
export function followsFrontier(
  asked: ReadonlySet<string>,
  visible: ReadonlySet<string> | null,
  project: string,
): boolean {
  return asked.has(project) && (visible === null || visible.has(project));
}
