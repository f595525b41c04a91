import { array, boolean, extend, itemDetailSchema, nullable, number, object, string } from '@app/contracts/mcp';

import { itemWholeText } from '../text';
import { answer, defineTool, READ, ref } from './tool';

export const getItemTool = defineTool({
  name: 'get_item',
  annotations: READ,
  title: 'Read an item',
  description:
    'An item whole: its fields, body and sections, its dependencies both ways (with gate point and whether ' +
    'each is satisfied), who holds its claim, and its last changes (who changed what).',
  input: { item: ref },
  output: extend(itemDetailSchema, {
    dependencies: array(
      object({
        direction: string(),
        other_item: nullable(string()),
        other_status: nullable(string()),
        gate_point: string(),
        satisfaction: string(),
        satisfied: boolean(),
      }),
    ),
    claim: nullable(object({ session_id: number(), harness: string(), model: string(), expires_at: string() })),
    last_changes: array(
      object({
        at: string(),
        actor: nullable(string()),
        action: string(),
        field: nullable(string()),
      }),
    ),
  }).shape,
  run: async (args, ctx) =>
    answer(async () => {
      const item = await ctx.api.item(args.item);
      const [deps, claims, history] = await Promise.all([
        ctx.api.dependencies(item.item_id).catch(() => ({ dependencies: [] })),
        ctx.api.claims(item.project).catch(() => ({ claims: [] })),
        ctx.api.itemHistory(item.item_id, { limit: 5 }).catch(() => ({ changes: [] })),
      ]);
      const holder = claims.claims.find((c) => c.item_id === item.item_id);
      return {
        ...item,
        dependencies: deps.dependencies.map((d) => ({
          direction: d.direction,
          other_item: d.other_item,
          other_status: d.other_status,
          gate_point: d.gate_point,
          satisfaction: d.satisfaction,
          satisfied: d.satisfied,
        })),
        claim: holder
          ? {
              session_id: holder.session_id,
              harness: holder.harness,
              model: holder.model,
              expires_at: holder.expires_at,
            }
          : null,
        last_changes: history.changes.map((c) => ({ at: c.at, actor: c.actor, action: c.action, field: c.field })),
      };
    }, itemWholeText),
});
