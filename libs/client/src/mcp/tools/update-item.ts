import { PRIORITIES } from '@app/contracts';
import { describe, itemDetailSchema, nullable, oneOf, optional, record, string } from '@app/contracts/mcp';

import { ChargeFlowError } from '../../charge-flow';
import { itemText } from '../text';
import { answer, defineTool, ref, WRITE } from './tool';

export const updateItemTool = defineTool({
  name: 'update_item',
  annotations: WRITE(true, true),
  title: 'Change an item',
  description:
    'Change an item’s title, priority, body or named sections (a section set to null is removed). A claimed ' +
    'item’s title, body and sections belong to its holder (item_claimed_elsewhere for others). Answers the item.',
  input: {
    item: ref,
    title: describe(optional(string({ minLength: 1, maxLength: 10_000 })), 'the new title (one line)'),
    priority: describe(optional(oneOf(PRIORITIES)), 'the new priority'),
    body: describe(optional(string({ maxLength: 1_000_000 })), 'the new stored body text (Markdown); replaces the old'),
    sections: describe(
      optional(record(nullable(string({ maxLength: 1_000_000 })))),
      'named Markdown sections to write, e.g. {"acceptance": "…"}; null removes a section',
    ),
  },
  output: itemDetailSchema.shape,
  run: async (args, ctx) =>
    answer(async () => {
      const fields = (['title', 'priority', 'body'] as const).filter((f) => args[f] !== undefined);
      const sections = Object.entries(args.sections ?? {});
      if (fields.length === 0 && sections.length === 0) {
        throw new ChargeFlowError('invalid_arguments', 'give title, priority, body or sections to change');
      }
      for (const field of fields) await ctx.api.setItemField(args.item, field, { value: args[field] });
      for (const [name, content] of sections) {
        if (content === null) await ctx.api.deleteSection(args.item, name);
        else await ctx.api.putSection(args.item, name, { content });
      }
      return ctx.api.item(args.item);
    }, itemText),
});
