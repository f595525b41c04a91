import type { State } from './state';

// A new prompt (a new `owner`) starts with the cursor at its end.
export interface ActivePrompt {
  owner: string;
  text: string;
  history?: readonly string[];
  multiLine?: boolean;
}

export function activePrompt(state: State): ActivePrompt | null {
  const d = state.dialog;
  if (!d) return state.filtering ? { owner: 'filter', text: state.filter, history: state.filterHistory } : null;
  switch (d.kind) {
    case 'picker':
      return {
        owner: `picker:${d.purpose}:${d.refs.join()}`,
        text: d.filter,
        history: d.purpose === 'palette' ? state.triage.history : undefined,
      };
    case 'input':
      return { owner: `input:${d.purpose}:${d.refs.join()}`, text: d.value, multiLine: d.purpose === 'comment' };
    case 'code':
      return d.busy ? null : { owner: `code:${d.requestId}`, text: d.input };
    case 'help':
      return { owner: 'help', text: d.filter };
    case 'projects':
      return d.filtering ? { owner: 'projects', text: d.filter ?? '' } : null;
    default:
      return null;
  }
}

export function promptCursor(state: State): number | null {
  const p = activePrompt(state);
  if (!p) return null;
  if (state.line.owner !== p.owner || state.line.cursor === null) return p.text.length;
  return Math.min(p.text.length, state.line.cursor);
}
