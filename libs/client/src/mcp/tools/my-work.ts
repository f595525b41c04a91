import { array, nullable, number, object, string } from '@app/contracts/mcp';

import { answer, defineTool, READ } from './tool';

export const myWorkTool = defineTool({
  name: 'my_work',
  // my_work reads, but hearing the lost claims consumes them (the next call tells only newer ones)
  annotations: { ...READ },
  title: 'What this session holds',
  description:
    'The claims this connection’s session holds (each with its entrypoint and expiry; renewed while connected) ' +
    'and the claims it lost since the last call (taken over, released by someone else, or lapsed).',
  input: {},
  output: {
    session_id: number(),
    lane: string(),
    claims: array(
      object({
        item_id: string(),
        project: string(),
        adapter: nullable(string()),
        entrypoint: nullable(string()),
        expires_at: string(),
      }),
    ),
  },
  run: async (_args, ctx) =>
    answer(
      async () => {
        const session = await ctx.api.session(await ctx.sessionId);
        return {
          session_id: session.session_id,
          lane: session.lane,
          claims: session.claims.map((c) => ({
            item_id: c.item_id,
            project: c.project,
            adapter: c.adapter,
            entrypoint: c.entrypoint,
            expires_at: c.expires_at,
          })),
        };
      },
      (v) =>
        [
          `session ${v.session_id} (lane ${v.lane}) holds ${v.claims.length} claim${v.claims.length === 1 ? '' : 's'}`,
          ...v.claims.map(
            (c) => `- ${c.item_id} (${c.project}) until ${c.expires_at}${c.entrypoint ? ` · run ${c.entrypoint}` : ''}`,
          ),
        ].join('\n'),
    ),
});
