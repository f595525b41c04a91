import { explainResponseSchema } from '@app/contracts/mcp';

import { explainText } from '../text';
import { answer, defineTool, READ, ref, whatIfWipCapArg } from './tool';

export const explainTool = defineTool({
  name: 'explain',
  annotations: READ,
  title: 'Why an item waits',
  description:
    'Why an item is runnable, blocked or frozen, down to each unsatisfied fact and what would satisfy it; ' +
    'unblock_roots are what to start first. For a runnable item, why it ranks where it does.',
  input: { item: ref, wip_cap: whatIfWipCapArg },
  output: explainResponseSchema.shape,
  run: async (args, ctx) => answer(() => ctx.api.explain(args.item, { wip_cap: args.wip_cap }), explainText),
});
