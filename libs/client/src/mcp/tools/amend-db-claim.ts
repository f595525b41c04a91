import { anything, boolean, dbClaimResponseSchema, describe, optional, record, string } from '@app/contracts/mcp';

import { ChargeFlowError } from '../../charge-flow';
import { answer, defineTool, ref, WRITE } from './tool';

export const amendDbClaimTool = defineTool({
  name: 'amend_db_claim',
  annotations: WRITE(true),
  title: 'Amend the DB claim',
  description:
    'Declare the item’s governed database mutation (claim: the profile and attestation payload), or attest ' +
    'that it makes none (none: true, with a reason).',
  input: {
    item: ref,
    claim: describe(optional(record(anything())), 'the DB claim payload (state declared, …)'),
    none: describe(optional(boolean()), 'the negative claim shortcut: no governed DB work'),
    reason: describe(optional(string({ maxLength: 10_000 })), 'why (required in spirit with none: true)'),
  },
  output: dbClaimResponseSchema.shape,
  run: async (args, ctx) =>
    answer(
      async () => {
        const session_id = await ctx.sessionId;
        if (args.none) return ctx.api.negativeDbClaim(args.item, { reason: args.reason }, { session_id });
        if (!args.claim) throw new ChargeFlowError('invalid_arguments', 'give claim, or none: true');
        return ctx.api.amendDbClaim(args.item, args.claim, { session_id, reason: args.reason });
      },
      (c) => `${c.item_id}: DB claim ${c.claim.state ?? 'unset'} (${c.reviewed ? 'reviewed' : c.reviewed_reason})`,
    ),
});
