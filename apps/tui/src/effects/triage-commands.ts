import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { isHttpError, SvcConnectionError, SvcHttpError } from '@app/client';

import { storedBodyOf } from '@app/contracts/backlog';
import type { GateBlockerWire, WorkflowStage } from '@app/contracts/backlog';

import { selectedItem } from '../state/selectors';
import { blockerOptions } from '../state/triage';
import type { PickerOption, State, TriageCommand, TriageResult } from '../state/state';
import type { ItemWire } from '../wire';
import { describe, EffectsContext } from './context';

export class TriageCommands {
  constructor(private readonly ctx: EffectsContext) {}

  onAction(previous: State, next: State, key: string | null = null): void {
    if (key === 'body_edit' && !next.readOnly && next.dialog === null) {
      const ref = next.detail && next.detailOpen ? next.detail.ref : null;
      const selected = selectedItem(next)?.item_id ?? ref;
      if (selected) void this.editBody(selected);
    }
    const run = next.triage.run;
    if (run && run.id !== previous.triage.run?.id) void this.execute(run.id, run.commands);
    const d = next.dialog;
    if (d?.kind === 'picker' && d.options === null && previous.dialog !== d) {
      const before = previous.dialog;
      const same = before?.kind === 'picker' && before.purpose === d.purpose && before.refs.join() === d.refs.join();
      if (!same) {
        if (d.purpose === 'status') void this.loadStages(d.refs);
        if (d.purpose === 'dependency') void this.loadCandidates(d.refs);
      }
    }
  }

  private async loadStages(refs: string[]): Promise<void> {
    const { api } = this.ctx.config;
    try {
      const wf = await api.itemWorkflow(refs[0]);
      const version = await api.workflowVersion(wf.workflow_id, wf.workflow_version);
      const options = version.definition.stages.map((s) => stageOption(s, wf.status));
      this.ctx.dispatch({ type: 'picker_options', purpose: 'status', refs, options });
    } catch (err) {
      this.ctx.dispatch({ type: 'key', action: 'picker_cancel' });
      this.ctx.dispatch({ type: 'status', text: `stages of ${refs[0]}: ${describe(err)}`, tone: 'error' });
    }
  }

  private async loadCandidates(refs: string[]): Promise<void> {
    const state = this.ctx.state;
    const own = blockerOptions(state, refs[0], false);
    this.ctx.dispatch({ type: 'picker_options', purpose: 'dependency', refs, options: own });
    try {
      const list = await this.ctx.config.api.items({ limit: 1000 });
      const others: PickerOption[] = list.items
        .filter((i) => i.project !== state.project)
        .map((i) => ({ value: i.item_id, label: `${i.item_id} ${i.title}`, note: `${i.status}, ${i.project}` }));
      if (others.length === 0) return;
      const d = this.ctx.state.dialog;
      if (d?.kind !== 'picker' || d.purpose !== 'dependency') return;
      this.ctx.dispatch({ type: 'picker_options', purpose: 'dependency', refs, options: [...own, ...others] });
    } catch {
      // other projects are a convenience: this project's items stay
    }
  }

  private async editBody(ref: string): Promise<void> {
    const { api, editFile } = this.ctx.config;
    if (!editFile) {
      this.ctx.dispatch({ type: 'status', text: 'no terminal to run an editor in', tone: 'error' });
      return;
    }
    let dir: string | null = null;
    try {
      const [field, detail] = await Promise.all([api.itemField(ref, 'body'), api.item(ref)]);
      // a read of `body` answers the rendering (the stored body, then the sections and structured fields under
      // their headings): the sections are edited below their own marks, so the body is the stored text alone
      const sections = detail.sections ?? [];
      const rendered = typeof field.value === 'string' ? field.value : '';
      const before: EditedText = { body: storedBodyOf(rendered, sections, detail), sections: {} };
      for (const sec of sections) before.sections[sec.section_name] = sec.content ?? '';
      dir = mkdtempSync(join(tmpdir(), 'svc-edit-'));
      const path = join(dir, `${ref}.md`);
      writeFileSync(path, formatEditable(before));
      const code = await editFile(path);
      if (code !== 0) {
        this.ctx.dispatch({ type: 'status', text: `the editor exited ${code}: ${ref} left unchanged`, tone: 'warn' });
        return;
      }
      const after = parseEditable(readFileSync(path, 'utf8'));
      const commands: TriageCommand[] = [];
      if (after.body.trimEnd() !== before.body.trimEnd()) commands.push({ op: 'body', ref, body: after.body });
      for (const [name, content] of Object.entries(after.sections)) {
        if ((before.sections[name] ?? null)?.trimEnd() !== content.trimEnd())
          commands.push({ op: 'section', ref, name, content });
      }
      if (commands.length === 0) {
        this.ctx.dispatch({ type: 'status', text: `${ref}: nothing changed`, tone: 'info' });
        return;
      }
      this.ctx.dispatch({ type: 'triage_start', commands });
    } catch (err) {
      this.ctx.dispatch({ type: 'status', text: `edit ${ref}: ${describe(err)}`, tone: 'error' });
    } finally {
      if (dir) rmSync(dir, { recursive: true, force: true });
    }
  }

  private async execute(id: number, commands: TriageCommand[]): Promise<void> {
    const results: TriageResult[] = [];
    for (const command of commands) results.push(await this.one(command));
    this.ctx.dispatch({ type: 'triage_done', id, results });
    this.ctx.refetch(['frontier', 'claims', 'events']);
    const detail = this.ctx.state.detail;
    if (this.ctx.state.detailOpen && detail) this.ctx.loadDetail(detail.ref, 0);
  }

  private async one(command: TriageCommand): Promise<TriageResult> {
    const { api } = this.ctx.config;
    try {
      switch (command.op) {
        case 'status': {
          const before = await api.item(command.ref);
          await api.setItemStatus(command.ref, command.to);
          return ok(command, `${command.ref}: ${before.status} → ${command.to}`, {
            op: 'status',
            ref: command.ref,
            to: before.status,
          });
        }
        case 'priority': {
          const before = await api.item(command.ref);
          await api.setItemField(command.ref, 'priority', { value: command.to });
          return ok(command, `${command.ref}: priority ${before.priority} → ${command.to}`, {
            op: 'priority',
            ref: command.ref,
            to: before.priority,
          });
        }
        case 'title': {
          const before = await api.item(command.ref);
          await api.setItemField(command.ref, 'title', { value: command.to });
          return ok(command, `${command.ref}: title changed`, { op: 'title', ref: command.ref, to: before.title });
        }
        case 'block': {
          const before = await api.item(command.ref);
          await api.blockItem(command.ref, { reason: command.reason });
          return ok(command, `${command.ref} blocked: ${command.reason}`, inverseBlock(before));
        }
        case 'unblock': {
          const before = await api.item(command.ref);
          await api.itemAction(command.ref, 'unblock');
          return ok(command, `${command.ref} unblocked`, before.blocked ? inverseBlock(before) : null);
        }
        case 'freeze':
        case 'unfreeze': {
          const before = await api.item(command.ref);
          await api.itemAction(command.ref, command.op);
          const changed = (command.op === 'freeze') !== Boolean(before.frozen);
          const inverse: TriageCommand | null = changed
            ? { op: command.op === 'freeze' ? 'unfreeze' : 'freeze', ref: command.ref }
            : null;
          return ok(command, `${command.ref} ${command.op === 'freeze' ? 'frozen' : 'unfrozen'}`, inverse);
        }
        case 'release': {
          const r = await api.releaseClaim(command.session, command.ref);
          return ok(
            command,
            r.released ? `released the claim on ${command.ref}` : `${command.ref}: the claim had already gone`,
            null,
          );
        }
        case 'create': {
          const created = await api.createItem({
            project: command.project,
            title: command.title,
            priority: command.priority,
          });
          const ref = created.item_id;
          if (command.blockedBy) {
            try {
              await api.addDependency(ref, dependencyBody(command.blockedBy, 'activation', 'status:done'));
            } catch (err) {
              const refused = await this.refusal(command, err, ref);
              return {
                ...refused,
                message: `created ${ref}, but its dependency on ${command.blockedBy} was refused: ${refused.message}`,
                created: ref,
                inverse: { op: 'status', ref, to: 'cancelled' },
              };
            }
          }
          return {
            ...ok(command, `created ${ref}${command.blockedBy ? `, blocked by ${command.blockedBy}` : ''}`, {
              op: 'status',
              ref,
              to: 'cancelled',
            }),
            created: ref,
          };
        }
        case 'dep-add': {
          const r = await api.addDependency(
            command.dependent,
            dependencyBody(command.blocker, command.gate_point, command.satisfaction),
          );
          return ok(
            command,
            `${command.dependent} waits on ${command.blocker} at ${command.gate_point}${r.created ? '' : ' (already declared)'}`,
            r.created
              ? {
                  op: 'dep-remove',
                  dependent: command.dependent,
                  blocker: command.blocker,
                  gate_point: command.gate_point,
                }
              : null,
          );
        }
        case 'dep-remove': {
          const edges = await api.dependencies(command.dependent, {
            direction: 'depends_on',
            gate_point: command.gate_point,
          });
          const edge = edges.dependencies.find((e) => e.other_item === command.blocker);
          await api.removeDependency(command.dependent, command.blocker, { gate_point: command.gate_point });
          return ok(command, `${command.dependent} no longer waits on ${command.blocker}`, {
            op: 'dep-add',
            dependent: command.dependent,
            blocker: command.blocker,
            gate_point: command.gate_point,
            satisfaction: edge?.satisfaction ?? 'status:done',
          });
        }
        case 'body': {
          const before = await api.itemField(command.ref, 'body');
          await api.setItemField(command.ref, 'body', { value: command.body });
          const old = typeof before.value === 'string' ? before.value : '';
          return ok(command, `${command.ref}: body written`, { op: 'body', ref: command.ref, body: old });
        }
        case 'comment': {
          const comment = await api.addComment(command.ref, command.body);
          // a comment is not undone from here: it is a note others may already have read
          return ok(command, `${command.ref}: comment ${comment.id} posted`, null);
        }
        case 'section': {
          const before = await api.item(command.ref);
          await api.putSection(command.ref, command.name, { content: command.content });
          const old = before.sections?.find((x) => x.section_name === command.name)?.content ?? '';
          return ok(command, `${command.ref}: section ${command.name} written`, { ...command, content: old });
        }
      }
    } catch (err) {
      return this.refusal(command, err, 'ref' in command ? command.ref : null);
    }
  }

  private async refusal(command: TriageCommand, err: unknown, ref: string | null): Promise<TriageResult> {
    const detail: string[] = [];
    if (err instanceof SvcHttpError) {
      const body = err.body as { blockers?: GateBlockerWire[]; cycle?: string[] };
      if (err.code === 'blocked_by_dependencies' && Array.isArray(body.blockers)) {
        for (const b of body.blockers) {
          detail.push(
            `${b.blocker ?? '(missing)'}${b.blocker_status ? ` (${b.blocker_status})` : ''} ${b.satisfaction} — would satisfy: ${b.need}`,
          );
        }
        if (ref) {
          try {
            const ex = await this.ctx.config.api.explain(ref);
            if (ex.unblock_roots.length > 0) detail.push(`start first: ${ex.unblock_roots.join(', ')}`);
          } catch {
            // the blockers alone still say it
          }
        }
      } else if (Array.isArray(body.cycle)) {
        detail.push(`cycle: ${body.cycle.join(' → ')}`);
      } else if (isHttpError(err, 403)) {
        detail.push('the daemon refused the permission for this change');
      }
      return { command, ok: false, message: `${err.code}: ${err.body.message}`, detail };
    }
    // nobody answered: not a refusal (the daemon never saw the write)
    if (err instanceof SvcConnectionError)
      return { command, ok: false, message: describe(err), detail, unreachable: true };
    return { command, ok: false, message: describe(err), detail };
  }
}

function ok(command: TriageCommand, message: string, inverse: TriageCommand | null): TriageResult {
  return { command, ok: true, message, inverse };
}

function inverseBlock(before: ItemWire): TriageCommand {
  return before.blocked
    ? { op: 'block', ref: before.item_id, reason: before.blocked_reason || 'blocked before (no reason recorded)' }
    : { op: 'unblock', ref: before.item_id };
}

function dependencyBody(blocker: string, gatePoint: string, satisfaction: string) {
  return { blocker, gate_point: gatePoint, satisfaction, source: 'operator' };
}

function stageOption(stage: WorkflowStage, current: string): PickerOption {
  const gates = stage.gates.map((g) => (g.gate_point ? `${g.type} at ${g.gate_point}` : g.type));
  const notes = [stage.terminal ? 'terminal: asks first' : '', gates.length ? `gate: ${gates.join(', ')}` : '']
    .filter(Boolean)
    .join(' · ');
  return {
    value: stage.id,
    label: stage.id === current ? `${stage.id} (current)` : stage.id,
    note: notes || undefined,
    current: stage.id === current,
    terminal: stage.terminal,
  };
}

export interface EditedText {
  body: string;
  sections: Record<string, string>;
}

const SECTION_MARK = /^<!-- svc:section (.+?) -->$/;

export function formatEditable(text: EditedText): string {
  const parts = [text.body.replace(/\n*$/, '\n')];
  for (const [name, content] of Object.entries(text.sections)) {
    parts.push(`<!-- svc:section ${name} -->\n${content.replace(/\n*$/, '\n')}`);
  }
  return parts.join('\n');
}

export function parseEditable(raw: string): EditedText {
  const out: EditedText = { body: '', sections: {} };
  let current: string | null = null;
  const buf: string[] = [];
  const flush = () => {
    const text = buf.join('\n').replace(/\n+$/, '');
    if (current === null) out.body = text;
    else out.sections[current] = text;
    buf.length = 0;
  };
  for (const line of raw.replace(/\r/g, '').split('\n')) {
    const m = SECTION_MARK.exec(line);
    if (m) {
      flush();
      current = m[1];
    } else {
      buf.push(line);
    }
  }
  flush();
  return out;
}
