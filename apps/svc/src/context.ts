import { Command, Option } from 'commander';

import { apiFor, connectedCredentials, resolveConnection, SvcApi } from '@app/client';

import { PROJECT_PRECEDENCE, resolveProjectScope } from './workspace';

export { resolveConnection };

export interface GlobalOptions {
  url?: string;
  token?: string;
  json?: boolean;
  jq?: string;
  wide?: boolean;
}

export interface OutputOptions {
  // --json field1,field2 (taken out of argv before commander parses it: see usage.ts extractJsonFields)
  jsonFields?: string[];
  jq?: string;
  wide?: boolean;
}

let current: OutputOptions = {};

export function setOutputOptions(next: OutputOptions): void {
  current = { ...current, ...next };
}

export const outputOptions = (): OutputOptions => current;

export function connectionFor(command: Command) {
  const { url, token } = command.optsWithGlobals<GlobalOptions>();
  return resolveConnection({ url, token });
}

// Commands that need a credential: without any, NotConnectedError says how to get one.
export function apiOf(command: Command): SvcApi {
  const { url, token } = command.optsWithGlobals<GlobalOptions>();
  return apiFor(connectedCredentials({ url, token }), 'cli');
}

export function wantsJson(command: Command): boolean {
  const { json, jq } = command.optsWithGlobals<GlobalOptions>();
  return Boolean(json) || jq !== undefined || current.jsonFields !== undefined;
}

// Its default follows PROJECT_PRECEDENCE (docs/user-guide.md, "Project scope").
export const projectOption = (what = 'project id') =>
  new Option('--project <project>', `${what} (default: ${PROJECT_PRECEDENCE})`);

// Commands whose project filter is optional can drop the implicit scope.
export const allProjectsOption = () =>
  new Option('--all-projects', 'every project you can access: ignore SVC_PROJECT and .svc.json').conflicts('project');

export function scopedProject(flag: string | undefined, options: { allProjects?: boolean } = {}): string | undefined {
  if (options.allProjects) return undefined;
  return resolveProjectScope(flag, options)?.project;
}

// Commands whose --project means something else than a scope (evaluate-gates: every item instead of the refs).
const UNSCOPED = new Set(['evaluate-gates']);

// Every --project option of the tree defaults to the resolved scope, so that each project-scoped command (those of
// other areas too, whose --project is mandatory) follows the same precedence, and --help shows where it came from.
export function applyProjectScope(program: Command, scope = resolveProjectScope(undefined)): void {
  const walk = (command: Command) => {
    for (const option of command.options) {
      if (option.long !== '--project' || UNSCOPED.has(command.name())) continue;
      if (scope) {
        option.default(scope.project, `${scope.project}, from ${scope.source}`);
        // addOption stored the option's default when it was registered; store this one the same way
        command.setOptionValueWithSource(option.attributeName(), scope.project, 'default');
      }
      if (!option.description.includes('SVC_PROJECT')) option.description += ' (default: SVC_PROJECT, else .svc.json)';
    }
    command.commands.forEach(walk);
  };
  walk(program);
}

export function projectNamed(command: Command): boolean {
  return command.getOptionValueSource('project') !== 'default' && command.getOptionValue('project') !== undefined;
}

// A bare item number (`12`) names an item of the scoped project: `<prefix>-12`. Other refs pass unchanged.
export async function scopedRef(api: SvcApi, ref: string): Promise<string> {
  if (!/^[0-9]{1,9}$/.test(ref)) return ref;
  const project = scopedProject(undefined);
  if (!project) return ref;
  const found = (await api.projects()).projects.find((p) => p.id === project);
  return found ? `${found.public_item_prefix}-${ref}` : ref;
}
