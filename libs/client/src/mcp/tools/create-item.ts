import { z } from 'zod';

import { PRIORITIES } from '@app/contracts';
import { itemDetailSchema } from '@app/contracts/mcp';

import { itemText } from '../text';
import { answer, defineTool, projectArg, WRITE } from './tool';

export const createItemTool = defineTool({
  name: 'create_item',
  annotations: WRITE(false),
  title: 'Create an item',
  description: 'A new backlog item in the project.',
  input: {
    title: z.string().min(1).max(10_000).describe('one line naming the work'),
    project: projectArg,
    priority: z.enum(PRIORITIES).optional().describe('high, medium or low (default medium)'),
    status: z.string().min(1).max(100).optional().describe('start stage (default the initial stage)'),
    workflow: z.string().min(1).max(63).optional().describe('workflow id, e.g. issue or epic (default issue)'),
    body: z.string().optional().describe('the description (Markdown)'),
    spec: z.string().optional().describe('the spec (Markdown), shown under its own heading in the body'),
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
