import { describe, optional, ouroborosEntrySchema, string } from '@app/contracts/mcp';

import { answer, defineTool, WRITE } from './tool';

export const addNoteTool = defineTool({
  name: 'add_note',
  annotations: WRITE(false),
  title: 'Add an ouroboros note',
  description: 'An observation for the people who improve the workflow (an ouroboros entry), signed by this session.',
  input: {
    category: describe(string({ minLength: 1, maxLength: 100 }), 'e.g. friction, bug, idea'),
    body: describe(string({ minLength: 1, maxLength: 100_000 }), 'the observation and what would improve the workflow'),
    context: describe(optional(string({ maxLength: 100_000 })), 'where it was seen, e.g. an item ref'),
  },
  output: ouroborosEntrySchema.shape,
  run: async (args, ctx) =>
    answer(
      async () => {
        const session = await ctx.ensureSession();
        return ctx.api.recordOuroboros({
          agent: `${session.harness}/${session.model}#${session.session_id}`.slice(0, 200),
          category: args.category,
          body: args.body,
          ...(args.context !== undefined ? { context: args.context } : {}),
        });
      },
      (e) => `ouroboros entry ${e.id} (${e.category}) recorded`,
    ),
});
