import { z } from 'zod';

import { PRIORITIES } from '@app/contracts';

import { decodeCursor, encodeCursor } from '../cursor';
import { oneLine } from '../text';
import { answer, defineTool, projectArg, READ } from './tool';

export const listItemsTool = defineTool({
  name: 'list_items',
  annotations: READ,
  title: 'List and search items',
  description:
    'Items of a project (any stage, not only the frontier), filtered and paged: pass next_cursor back as ' +
    'cursor for the next page. get_item reads one in full.',
  input: {
    project: projectArg,
    status: z
      .array(z.string().min(1).max(63))
      .max(30)
      .optional()
      .describe('only items at these stages, e.g. ["planned", "implementing"]'),
    priority: z.enum(PRIORITIES).optional().describe('only items of this priority'),
    text: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('a word or phrase of the title or body (case-insensitive), or a ref'),
    claimed: z.boolean().optional().describe('true: only items someone holds a live claim on; false: only unclaimed'),
    blocked: z.boolean().optional().describe('true: only items with the operator block flag; false: only without'),
    limit: z.number().int().min(1).max(100).optional().describe('page size (default 25)'),
    cursor: z.string().max(40).optional().describe('next_cursor of the previous page'),
  },
  output: {
    project: z.string(),
    total: z.number(),
    items: z.array(
      z.object({
        item_id: z.string(),
        title: z.string(),
        status: z.string(),
        priority: z.string(),
        blocked: z.boolean(),
        frozen: z.boolean(),
        updated_at: z.string(),
      }),
    ),
    next_cursor: z.string().nullable(),
  },
  run: async (args, ctx) =>
    answer(
      async () => {
        const project = args.project ?? ctx.project;
        if (!project) throw ctx.projectRequired();
        const offset = args.cursor === undefined ? 0 : decodeCursor(args.cursor);
        const limit = args.limit ?? 25;
        const query: Record<string, string | number> = { project, limit, offset };
        if (args.status) query.status = args.status.join(',');
        if (args.priority) query.priority = args.priority;
        if (args.text) query.q = args.text;
        if (args.claimed !== undefined) query.claimed = args.claimed ? '1' : '0';
        if (args.blocked !== undefined) query.blocked = args.blocked ? '1' : '0';
        const page = await ctx.api.items(query);
        const end = offset + page.items.length;
        return {
          project,
          total: page.total,
          items: page.items.map((i) => ({
            item_id: i.item_id,
            title: i.title,
            status: i.status,
            priority: i.priority,
            blocked: i.blocked === 1,
            frozen: i.frozen === 1,
            updated_at: i.updated_at,
          })),
          next_cursor: end < page.total && page.items.length > 0 ? encodeCursor(end) : null,
        };
      },
      (v) =>
        [
          `${v.project}: ${v.items.length} of ${v.total} item${v.total === 1 ? '' : 's'}${v.next_cursor ? ` (more: cursor ${v.next_cursor})` : ''}`,
          ...v.items.map(
            (i) => `- ${i.item_id} [${i.status}, ${i.priority}${i.blocked ? ', blocked' : ''}] ${oneLine(i.title, 80)}`,
          ),
        ].join('\n'),
    ),
});
