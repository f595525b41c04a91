import { dispatchResponseSchema, optional } from '@app/contracts/mcp';

import { runCharge } from '../../charge-flow';
import { claimText } from '../text';
import { defineTool, errorBody, projectArg, ref, toolError, wipCapArg, withJson, WRITE } from './tool';

export const claimTool = defineTool({
  name: 'claim',
  annotations: WRITE(false),
  title: 'Claim work',
  description:
    'Charge the top item of this session’s schedule, or the named one: an atomic claim under the WIP cap. ' +
    'Answers the entrypoint to run and the claim (held while this connection lives; release gives it back).',
  input: { item: optional(ref), project: projectArg, wip_cap: wipCapArg },
  output: dispatchResponseSchema.shape,
  // One claim at a time per connection: two concurrent calls of one agent get two items.
  run: (args, ctx, call) =>
    ctx.serialized(async () => {
      try {
        if (call.signal.aborted) return toolError({ code: 'cancelled', message: 'the claim was cancelled' });
        const session = await ctx.sessionId;
        const reports: string[] = [];
        const outcome = await runCharge(
          ctx.api,
          {
            project: args.project ?? null,
            item: args.item ?? null,
            wipCap: args.wip_cap ?? ctx.wipCap,
            session,
            harness: ctx.harness,
            model: ctx.model,
            workspaceProject: ctx.project,
            skipOwnClaims: true,
            claimUnoffered: true,
          },
          {
            confirm: () => Promise.resolve(true),
            report: (line) => reports.push(line.trim()),
            runDispatcher: () => Promise.resolve(0),
          },
        );
        if (outcome.dispatch) {
          // a client that cancels this call never learns of the claim: then it must not stand
          const item = outcome.dispatch.item_id;
          if (call.signal.aborted) {
            // given back before this connection's next claim starts: given back after it, the release would undo a
            // claim that call answered
            await ctx.api.releaseClaim(session, item).catch(() => undefined);
            return toolError({ code: 'cancelled', message: 'claim was cancelled; what it did was given back' });
          }
          // A cancellation can arrive after the answer, even after the client gave the item back and claimed it
          // again (the SDK sends one whenever its signal fires): it undoes this call's claim, never a later one's.
          const stillThisCalls = ctx.claimTaken(item);
          call.onCancel(() =>
            ctx.serialized(async () => {
              if (stillThisCalls()) await ctx.api.releaseClaim(session, item);
            }),
          );
          return withJson(claimText(outcome.dispatch), outcome.dispatch);
        }
        // The daemon's refusal when it gave one, else the flow's decision.
        const refusal = outcome.error ?? daemonRefusal(outcome.extra.error);
        const reason = refusal?.code ?? outcome.decision.reason;
        return toolError({
          code: reason,
          message: refusal?.message ?? (reports.join('; ') || reasonMessage(reason)),
          decision: outcome.decision,
          ...outcome.extra,
        });
      } catch (err) {
        return toolError(errorBody(err));
      }
    }),
});

function daemonRefusal(error: unknown): { code: string; message: string } | null {
  if (typeof error !== 'object' || error === null) return null;
  const { code, message } = error as Record<string, unknown>;
  return typeof code === 'string' && typeof message === 'string' ? { code, message } : null;
}

function reasonMessage(reason: string): string {
  switch (reason) {
    case 'no_runnable_items':
      return 'nothing runnable for this session';
    case 'requested_item_unavailable':
      return 'the item is not runnable for this session (blocked, frozen, terminal, claimed elsewhere or another lane)';
    case 'wait_adapter_encountered':
      return 'the top item is a wait step: its blockers must clear first';
    default:
      return reason;
  }
}
