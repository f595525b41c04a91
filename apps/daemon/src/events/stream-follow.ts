import { MAX_STREAM_FRONTIER_PROJECTS } from '@app/contracts';

import { PROJECT_ID_PATTERN } from '../projects/dto/projects.dto';

// A stream follows only the projects it names: an admin's filterless stream (the TUI's) must not make every replica
// compute every project's frontier.

export const FRONTIER_NOTICE = 'frontier';
export const MAX_FRONTIER_PROJECTS = MAX_STREAM_FRONTIER_PROJECTS;

const ID = PROJECT_ID_PATTERN.source.replace(/^\^|\$$/g, '');
export const FRONTIER_PARAM_PATTERN = new RegExp(`^(${ID}(,${ID}){0,${MAX_FRONTIER_PROJECTS - 1}})?$`);

export function frontierProjectsOf(query: { project?: string; frontier?: string }): ReadonlySet<string> {
  if (query.frontier === undefined) return new Set(query.project ? [query.project] : []);
  const named = query.frontier.split(',').filter((p) => p.length > 0);
  return new Set(query.project ? named.filter((p) => p === query.project) : named);
}

// `visible`: the caller's latest visibility, null for every project.
export function followsFrontier(
  asked: ReadonlySet<string>,
  visible: ReadonlySet<string> | null,
  project: string,
): boolean {
  return asked.has(project) && (visible === null || visible.has(project));
}
