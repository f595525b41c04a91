import { Command } from 'commander';

import { apiOf } from '../context';
import { action, output, printKeyValues } from '../output';

export function registerApproveCommand(program: Command): void {
  program
    .command('approve <ref>')
    .description("approve the deployment stage an item's run awaits (then re-run the usher step)")
    .action(
      action(async (ref: string, _options: unknown, command: Command) => {
        const approved = await apiOf(command).approveDeployment(ref);
        output(command, approved, (a) => {
          printKeyValues([
            ['item', a.item_id],
            ['run', a.run_id],
            ['environment', a.environment],
            ['stage', a.stage],
            ['approved by', a.approved_by],
            ['approved at', a.approved_at],
          ]);
          process.stdout.write(`approved ${a.stage} for ${a.item_id}; re-run the usher step to continue the run\n`);
        });
      }),
    );
}
