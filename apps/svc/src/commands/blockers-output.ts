import Table from 'cli-table3';

import { terminalLine } from '@app/client';
import { GateBlockerWire } from '@app/contracts/backlog';

export function printBlockerRefusal(
  body: { code?: unknown; blockers?: unknown },
  write: (s: string) => unknown = (s) => process.stderr.write(s),
): boolean {
  if (body.code !== 'blocked_by_dependencies' || !Array.isArray(body.blockers)) return false;
  const table = new Table({
    head: ['blocker', 'title', 'satisfaction', 'state', 'would satisfy'],
    style: { head: [], border: [], compact: true },
    wordWrap: true,
  });
  for (const b of body.blockers as GateBlockerWire[]) {
    // the refusal echoes stored text: each cell one line, control characters escaped
    table.push(
      [b.blocker ?? '(missing)', b.blocker_title ?? '', b.satisfaction, b.blocker_status ?? '', b.need ?? ''].map((c) =>
        terminalLine(String(c ?? '')),
      ),
    );
  }
  write(`${table.toString()}\n`);
  return true;
}
