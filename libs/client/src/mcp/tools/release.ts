import { releaseClaimResponseSchema } from '@app/contracts/mcp';

import { answer, defineTool, ref, WRITE } from './tool';

export const releaseTool = defineTool({
  name: 'release',
  annotations: WRITE(true, true),
  title: 'Release a claim',
  description: 'Give back this session’s claim on an item (released: false when the session held none).',
  input: { item: ref },
  output: releaseClaimResponseSchema.shape,
  run: async (args, ctx) =>
    answer(
      async () => ctx.api.releaseClaim(await ctx.sessionId, args.item),
      (r) => (r.released ? `released ${r.item_id}` : `session ${r.session_id} held no claim on ${r.item_id}`),
    ),
});
