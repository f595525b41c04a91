import { PRIORITIES } from '@app/contracts';
import {
  array,
  boolean,
  describe,
  integer,
  nullable,
  number,
  object,
  oneOf,
  optional,
  string,
} from '@app/contracts/mcp';

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
    status: describe(
      optional(array(string({ minLength: 1, maxLength: 63 }), { maxItems: 30 })),
      'only items at these stages, e.g. ["planned", "implementing"]',
    ),
    priority: describe(optional(oneOf(PRIORITIES)), 'only items of this priority'),
    text: describe(
      optional(string({ minLength: 1, maxLength: 200 })),
      'a word or phrase of the title or body (case-insensitive), or a ref',
    ),
    claimed: describe(optional(boolean()), 'true: only items someone holds a live claim on; false: only unclaimed'),
    blocked: describe(optional(boolean()), 'true: only items with the operator block flag; false: only without'),
    limit: describe(optional(integer({ minimum: 1, maximum: 100 })), 'page size (default 25)'),
    cursor: describe(optional(string({ maxLength: 40 })), 'next_cursor of the previous page'),
  },
  output: {
    project: string(),
    total: number(),
    items: array(
      object({
        item_id: string(),
        title: string(),
        status: string(),
        priority: string(),
        blocked: boolean(),
        frozen: boolean(),
        updated_at: string(),
      }),
    ),
    next_cursor: nullable(string()),
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
