import { PRIORITIES } from '@app/contracts';
import { describe, itemDetailSchema, oneOf, optional, string } from '@app/contracts/mcp';

import { itemText } from '../text';
import { answer, defineTool, projectArg, WRITE } from './tool';

export const createItemTool = defineTool({
  name: 'create_item',
  annotations: WRITE(false),
  title: 'Create an item',
  description: 'A new backlog item in the project.',
  input: {
    title: describe(string({ minLength: 1, maxLength: 10_000 }), 'one line naming the work'),
    project: projectArg,
    priority: describe(optional(oneOf(PRIORITIES)), 'high, medium or low (default medium)'),
    status: describe(optional(string({ minLength: 1, maxLength: 100 })), 'start stage (default the initial stage)'),
    workflow: describe(
      optional(string({ minLength: 1, maxLength: 63 })),
      'workflow id, e.g. issue or epic (default issue)',
    ),
    body: describe(optional(string()), 'the description (Markdown)'),
    spec: describe(optional(string()), 'the spec (Markdown), shown under its own heading in the body'),
  },
  output: itemDetailSchema.shape,
  run: async (args, ctx) =>
    answer(async () => {
      const project = args.project ?? ctx.project;
      if (!project) throw ctx.projectRequired();
      const body: Record<string, unknown> = { project, title: args.title };
      for (const key of ['priority', 'status', 'workflow', 'body', 'spec'] as const) {
        if (args[key] !== undefined) body[key] = args[key];
      }
      return ctx.api.createItem(body);
    }, itemText),
});
