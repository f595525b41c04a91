import type { ExplainResponse, ItemResponse, WorkflowDefinition, WorkflowStage } from '@app/contracts';

import { MCP_PROMPTS, McpPromptName } from '../entrypoints';
import { oneLine } from './text';

export { MCP_PROMPTS, type McpPromptName };

// `/svc <adapter> <ref>` and `/svc advance <ref> <phase>` are what `next_work`, `claim` and `svc charge` hand out.

interface AdapterGuide {
  title: string;
  description: string;
  goal: string;
  steps: string[];
}

export const ADAPTER_GUIDES: Record<McpPromptName, AdapterGuide> = {
  refine: {
    title: 'Refine an item',
    description:
      'Turn an idea or a drafted plan into a refined one: a clear spec, acceptance criteria, open questions.',
    goal: 'the item leaves refinement with a spec an implementer can follow without asking',
    steps: [
      'Read the body and sections below; read the code and documents they name.',
      'Move the item into its refining stage (set_status) so others see it is being refined.',
      'Write the spec: the problem, the intended behaviour, acceptance criteria, what is out of scope, open questions ' +
        '(update_item with body or sections, e.g. a "spec" section).',
      'Leave decisions and questions for people as a comment on the item (comment).',
      'Move the item to the stage after refinement (set_status); a refusal lists each gate and what satisfies it.',
    ],
  },
  shepherd: {
    title: 'Shepherd an epic',
    description: 'Mature a refined epic into a plan: its parts, their order and dependencies, the risks.',
    goal: 'the epic has a plan whose parts can be conducted one by one',
    steps: [
      'Read the epic below and the items it already depends on (get_item, explain).',
      'Break it into parts: create_item for each missing part, add_dependency for the order between them.',
      'Write the plan and the risks in the epic (update_item sections, e.g. "technical_plan").',
      'Note the caveats for the people who own the epic (comment).',
      'Move the epic to its next stage (set_status) once the plan stands.',
    ],
  },
  conduct: {
    title: 'Conduct an item',
    description: 'Start implementing a planned item: check its gates, then build it.',
    goal: 'the item is implemented and in review',
    steps: [
      'Read the item below; check the gates of its next stage (explain answers what still waits and why).',
      'Move it to implementing (set_status): the dependencies gate is checked there; a refusal lists each blocker ' +
        'and what would satisfy it — start those first, or release the claim and take other work.',
      'If the work changes a governed database, declare it with amend_db_claim (or attest none: true with a reason).',
      'Implement and test the change; record what you did and the test results (update_item sections: notes, test_results).',
      'Move it on to review (set_status) when the tests pass.',
    ],
  },
  advance: {
    title: 'Advance an item through a phase',
    description: 'Re-enter a phase of an item already under way (default: implementation) and carry it forward.',
    goal: 'the item leaves the phase ready for its next stage',
    steps: [
      'Read the item below, its notes and its last changes (get_item): pick up where the previous agent stopped.',
      'Check the gates of the next stage (explain) before moving.',
      'Do the work of the phase (implementation: build and test; review: read the change against the spec).',
      'Record what you did and what remains (update_item sections: notes; test results).',
      'Move it to the next stage (set_status) when the phase is done.',
    ],
  },
  polish: {
    title: 'Polish an item',
    description: 'The finishing review of a reviewed implementation: the rough edges, the docs, the last fixes.',
    goal: 'the item is implemented and ready to ship',
    steps: [
      'Read the item below and the review it received (its notes and last changes: get_item).',
      'Move it into polishing (set_status); fix what the review raised, finish docs and tests.',
      'Record what changed (update_item sections: notes) and move it to implemented (set_status).',
    ],
  },
  usher: {
    title: 'Usher an item to release',
    description: 'Ship an implemented item: deploy it, record the deployment, close it.',
    goal: 'the item is deployed and done',
    steps: [
      'Read the item below and its deployment state.',
      'Move it to release (set_status) and run its deployment; a halted run needs an operator (an approval or a ' +
        'missing capability): say so in a comment and release the claim.',
      'Record where it was deployed and the deploy log (update_item sections: notes, deploy log).',
      'Move it to done (set_status) once deployed.',
    ],
  },
};

export interface PromptInput {
  prompt: McpPromptName;
  phase?: string;
  item: ItemResponse;
  workflow: WorkflowDefinition | null;
  explain: ExplainResponse | null;
}

function gateWords(stage: WorkflowStage): string[] {
  return stage.gates.map((g) =>
    g.type === 'check_hard_blocks'
      ? `dependencies at ${g.gate_point ?? 'activation'}: every hard blocker satisfied (usually: the blocker is done)`
      : `${g.type}${g.gate_point ? ` at ${g.gate_point}` : ''}`,
  );
}

export function stagesAhead(
  workflow: WorkflowDefinition,
  status: string,
): { path: WorkflowStage[]; handoff: WorkflowStage | null } {
  const stages = workflow.stages.filter((s) => !s.terminal);
  const at = stages.findIndex((s) => s.id === status);
  if (at < 0) return { path: [], handoff: null };
  const adapter = stages[at].adapter;
  const path: WorkflowStage[] = [];
  let i = at + 1;
  while (i < stages.length && stages[i].adapter === adapter) path.push(stages[i++]);
  const handoff = stages[i] ?? workflow.stages.find((s) => s.id === 'done') ?? null;
  return { path, handoff };
}

export function renderPrompt(input: PromptInput): string {
  const { item, workflow, explain } = input;
  const guide = ADAPTER_GUIDES[input.prompt];
  const phase = input.prompt === 'advance' ? ` (phase ${input.phase ?? 'implementation'})` : '';
  const lines: string[] = [
    `# ${guide.title}${phase}: ${item.item_id}`,
    '',
    `You are the ${input.prompt} step of svc's workflow for ${item.item_id} (project ${item.project}). ` +
      `Goal: ${guide.goal}.`,
    '',
    '## The item',
    `${item.item_id} — ${oneLine(item.title, 300)}`,
    `status ${item.status} · priority ${item.priority} · workflow ${item.workflow_id} v${item.workflow_version}` +
      `${item.blocked ? ` · blocked (${oneLine(item.blocked_reason ?? '', 200)})` : ''}${item.frozen ? ' · frozen' : ''}`,
    '',
    item.body.trim().length > 0 ? item.body.trim() : '(no body)',
    '',
    '(end of the item)',
  ];

  lines.push('', '## Gates');
  if (workflow) {
    const { path, handoff } = stagesAhead(workflow, item.status);
    const ahead = [...path, ...(handoff ? [handoff] : [])];
    if (ahead.length === 0) lines.push(`- ${item.status} has no stage after it in workflow ${workflow.id}`);
    for (const stage of ahead) {
      const gates = gateWords(stage);
      lines.push(`- ${stage.id} (${stage.adapter}): ${gates.length > 0 ? gates.join('; ') : 'no gate'}`);
    }
    lines.push(`Stages of workflow ${workflow.id}: ${workflow.stages.map((s) => s.id).join(', ')}.`);
  } else {
    lines.push('- (the workflow could not be read: set_status answers each gate a move fails)');
  }
  if (explain) {
    lines.push(`Now: ${explain.bucket}${explain.position !== null ? ` (#${explain.position})` : ''}.`);
    for (const f of explain.unsatisfied) {
      lines.push(`- waits on ${f.blocker ?? '(missing item)'} [${f.satisfaction}]: ${oneLine(f.need, 200)}`);
    }
    if (explain.unblock_roots.length > 0) lines.push(`Start first: ${explain.unblock_roots.join(', ')}.`);
    if (explain.operator_block) lines.push(`Operator block: ${oneLine(explain.operator_block, 200)}.`);
  }

  lines.push('', '## Steps');
  guide.steps.forEach((step, i) => lines.push(`${i + 1}. ${step}`));

  lines.push(
    '',
    '## Tools and reporting',
    `- Claim first if you have not: claim {item: "${item.item_id}"} (held while this connection lives). A claimed ` +
      'item’s status, title, body and sections belong to its holder (others get item_claimed_elsewhere).',
    `- get_item {item: "${item.item_id}"} reads it again (body, sections, dependencies, claim, last changes); ` +
      `explain {item: "${item.item_id}"} says what still waits.`,
    `- set_status {item: "${item.item_id}", status: "<stage>"} moves it; a refusal lists each gate and what satisfies it.`,
    '- update_item changes the title, priority, body or sections.',
    `- comment {item: "${item.item_id}", body: "…"} leaves a note people read (svc items show, the TUI, get_item).`,
    '- add_note records feedback on the workflow itself (not on this item).',
    `- Report: a comment saying what you did, what you tested, and what is left; then release {item: "${item.item_id}"} ` +
      'when you stop (a claim you keep blocks everyone else).',
  );
  return lines.join('\n');
}
