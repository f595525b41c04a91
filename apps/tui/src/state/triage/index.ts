import type { Action } from '../actions';
import type { State } from '../state';
import { runDone, startRun } from './commands';
import type { TriageHelpers } from './common';
import { pickerOptionsArrived } from './dialogs';

// The triage actions as a pure state machine: each key opens a dialog state (picker, input,
// confirmation, refusal), the dialog's answer becomes a run of commands, and the effects report each command's
// outcome back as triage_done. Nothing here talks to the daemon.
//
// keys.ts dispatches the keys; dialogs.ts holds the pickers and inputs and what their answers become; palette.ts the
// `:` palette; commands.ts a run of commands and its outcome; navigation.ts the jumps. The reducer calls what is
// exported here.

export { COMMENT_MAX, OPERATOR_BLOCK, operatorBlock, PRIORITY_ORDER, rowByRef, targets } from './common';
export type { TriageHelpers } from './common';
export { describeCommand, startRun } from './commands';
export { blockerOptions, filteredOptions, nextStageIndex, reduceTriageInput, shownOptions } from './dialogs';
export { reduceTriageKey } from './keys';
export { jumpBack, jumpTo, selectArrived, sortBy } from './navigation';
export { paletteOptions } from './palette';

// The effects' answers: a picker's choices, a run's outcome.
export function reduceTriageAction(state: State, action: Action, helpers: TriageHelpers): State | null {
  switch (action.type) {
    case 'picker_options':
      return pickerOptionsArrived(state, action);
    case 'triage_start':
      return startRun(state, action.commands);
    case 'triage_done':
      return runDone(state, action, helpers);
    default:
      return null;
  }
}
