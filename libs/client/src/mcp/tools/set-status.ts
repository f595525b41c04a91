import { describe, itemDetailSchema, string } from '@app/contracts/mcp';

import { itemText } from '../text';
import { answer, defineTool, ref, WRITE } from './tool';

export const setStatusTool = defineTool({
  name: 'set_status',
  annotations: WRITE(true),
  title: 'Move an item',
  description:
    'Set an item’s workflow status. The gates are enforced: a refusal (blocked_by_dependencies) lists each ' +
    'blocker and what would satisfy it.',
  input: { item: ref, status: describe(string({ minLength: 1, maxLength: 100 }), 'target stage, e.g. implementing') },
  output: itemDetailSchema.shape,
  run: async (args, ctx) => answer(() => ctx.api.setItemStatus(args.item, args.status), itemText),
});
