import type { ScheduleStep } from '@app/contracts';
import {
  array,
  describe,
  extend,
  integer,
  optional,
  scheduleResponseSchema,
  scheduleStepSchema,
  string,
} from '@app/contracts/mcp';

import { nextWorkText, whyRanked } from '../text';
import { answer, defineTool, projectArg, READ, wipCapArg } from './tool';

// Both next_work calls of an agent's loop are read by the model (≤ 6 KB of tool output; bench/README.md "The agent
// loop").
export const NEXT_WORK_STEPS = 3;

// structuredContent keeps next_step always.
function withoutOwnNextStep<S extends ScheduleStep>(step: S): S | Omit<S, 'next_step'> {
  const next = step.next_step;
  if (next && next.stage === step.status && next.adapter === step.adapter && next.entrypoint === step.entrypoint) {
    const { next_step: _own, ...rest } = step;
    return rest;
  }
  return step;
}

export const nextWorkTool = defineTool({
  name: 'next_work',
  annotations: READ,
  title: 'Next work for this session',
  description:
    "The session's schedule: the top runnable items of its lane, ranked, each with its adapter, the entrypoint " +
    'to run and why it ranks there. Claim one with claim.',
  input: {
    limit: describe(optional(integer({ minimum: 1, maximum: 50 })), 'how many steps (default 3)'),
    project: projectArg,
    wip_cap: wipCapArg,
  },
  output: extend(scheduleResponseSchema, {
    steps: array(extend(scheduleStepSchema, { why: string() })),
  }).shape,
  run: async (args, ctx) =>
    answer(
      async () => {
        const schedule = await ctx.api.schedule({
          session_id: await ctx.sessionId,
          project: args.project ?? ctx.project ?? undefined,
          wip_cap: args.wip_cap ?? ctx.wipCap,
        });
        const steps = schedule.steps.slice(0, args.limit ?? NEXT_WORK_STEPS).map((s) => ({ ...s, why: whyRanked(s) }));
        return { ...schedule, steps };
      },
      (value) => nextWorkText(value, value.steps),
      (value) => ({ ...value, steps: value.steps.map(({ why: _why, ...step }) => withoutOwnNextStep(step)) }),
    ),
});
