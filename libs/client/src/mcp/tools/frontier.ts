import {
  array,
  describe,
  frontierItemSchema,
  integer,
  number,
  object,
  oneOf,
  optional,
  string,
} from '@app/contracts/mcp';

import { frontierText } from '../text';
import { answer, defineTool, projectArg, READ, whatIfWipCapArg } from './tool';

const buckets = ['runnable', 'blocked', 'frozen', 'conduct_eligible'] as const;

export const frontierTool = defineTool({
  name: 'frontier',
  annotations: READ,
  title: 'Frontier of a project',
  description: 'Runnable, blocked and frozen counts of the project’s charge frontier and the top items of a bucket.',
  input: {
    project: projectArg,
    bucket: describe(optional(oneOf(buckets)), 'which bucket to list (default runnable)'),
    limit: describe(optional(integer({ minimum: 1, maximum: 100 })), 'how many items (default 10)'),
    wip_cap: whatIfWipCapArg,
  },
  output: {
    project: string(),
    wip_cap: number(),
    wip_active: number(),
    counts: object({
      runnable: number(),
      blocked: number(),
      frozen: number(),
      conduct_eligible: number(),
    }),
    bucket: oneOf(buckets),
    items: array(frontierItemSchema),
  },
  run: async (args, ctx) =>
    answer(
      async () => {
        const project = args.project ?? ctx.project;
        if (!project) throw ctx.projectRequired();
        const read = await ctx.api.frontier({ project, wip_cap: args.wip_cap ?? ctx.wipCap });
        if (read.notModified) throw new Error('unexpected 304');
        const body = read.body;
        const bucket = args.bucket ?? 'runnable';
        return {
          project,
          wip_cap: body.wip_cap,
          wip_active: body.wip_active,
          counts: {
            runnable: body.runnable.length,
            blocked: body.blocked.length,
            frozen: body.frozen.length,
            conduct_eligible: body.conduct_eligible.length,
          },
          bucket,
          items: body[bucket].slice(0, args.limit ?? 10),
        };
      },
      (v) => frontierText(v.project, v.counts, v.bucket, v.items),
    ),
});
