import { dependencyAddSchema, describe, oneOf, optional, string } from '@app/contracts/mcp';

import { answer, defineTool, refArg, WRITE } from './tool';

export const addDependencyTool = defineTool({
  name: 'add_dependency',
  annotations: WRITE(true),
  title: 'Add a dependency',
  description: 'The dependent item waits for the blocker at a gate point (default activation).',
  input: {
    dependent: refArg('the item that waits, e.g. ATL-6'),
    blocker: refArg('the item it waits for, e.g. ATL-5'),
    gate_point: describe(
      optional(oneOf(['activation', 'integration', 'closure', 'coordination_only'])),
      'where the dependent waits: activation (before implementing), integration (before release), ' +
        'closure (before done), coordination_only (informational); default activation',
    ),
    satisfaction: describe(optional(string({ minLength: 1, maxLength: 200 })), 'default: the blocker is done'),
    rationale: describe(optional(string({ maxLength: 10_000 })), 'why it waits, for the people reading the graph'),
  },
  output: dependencyAddSchema.shape,
  run: async (args, ctx) =>
    answer(
      async () => {
        const body: Record<string, unknown> = { blocker: args.blocker, session_id: await ctx.sessionId };
        for (const key of ['gate_point', 'satisfaction', 'rationale'] as const) {
          if (args[key] !== undefined) body[key] = args[key];
        }
        return ctx.api.addDependency(args.dependent, body);
      },
      (d) =>
        `${d.created ? 'added' : 'already there'}: ${d.dependency.dependent} waits on ${d.dependency.blocker} at ${d.dependency.gate_point} (${d.dependency.satisfaction})`,
    ),
});
