import { describe, itemCommentSchema, string } from '@app/contracts/mcp';

import { answer, defineTool, ref, WRITE } from './tool';

export const commentTool = defineTool({
  name: 'comment',
  annotations: WRITE(false),
  title: 'Comment on an item',
  description:
    'Add a comment to an item: a note for the people and agents who read it (svc items show, the TUI’s detail ' +
    'pane, get_item’s comments, newest first). Not a change of the item: allowed on an item another session ' +
    'holds. Answers the comment.',
  input: {
    item: ref,
    body: describe(
      string({ minLength: 1, maxLength: 512 * 1024 }),
      'the comment (Markdown; newlines allowed; at most 512 KiB)',
    ),
  },
  output: itemCommentSchema.shape,
  run: async (args, ctx) =>
    answer(
      () => ctx.api.addComment(args.item, args.body),
      (c) => `commented on ${c.item_id} (comment ${c.id})`,
    ),
});
