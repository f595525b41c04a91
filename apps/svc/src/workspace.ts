import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export const WORKSPACE_FILE = '.svc.json';

export interface Workspace {
  project: string;
  source: string;
}

export function findWorkspace(cwd: string = process.cwd(), env: NodeJS.ProcessEnv = process.env): Workspace | null {
  const fromEnv = env.SVC_PROJECT?.trim();
  if (fromEnv) return { project: fromEnv, source: 'SVC_PROJECT' };
  let dir = resolve(cwd);
  for (;;) {
    const file = join(dir, WORKSPACE_FILE);
    if (existsSync(file)) {
      try {
        const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
        const project = (parsed as { project?: unknown } | null)?.project;
        if (typeof project === 'string' && project.length > 0) return { project, source: file };
      } catch {
        // an unreadable file names no project; keep looking upward
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

export interface ProjectScope {
  project: string;
  // where it came from: '--project', 'SVC_PROJECT' or the .svc.json path
  source: string;
}

export const PROJECT_PRECEDENCE = '--project, else env SVC_PROJECT, else the nearest .svc.json upward from here';

// The one resolver of every project-scoped command.
export function resolveProjectScope(
  flag: string | undefined,
  options: { allProjects?: boolean; cwd?: string; env?: NodeJS.ProcessEnv } = {},
): ProjectScope | null {
  if (flag) return { project: flag, source: '--project' };
  if (options.allProjects) return null;
  return findWorkspace(options.cwd, options.env);
}
