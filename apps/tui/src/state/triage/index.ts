import type { Action } from '../actions';
import type { State } from '../state';
import { runDone, startRun } from './commands';
import type { TriageHelpers } from './common';
import { pickerOptionsArrived } from './dialogs';

// A pure state machine: the effects report each command's outcome back as triage_done. Nothing here talks to the
// daemon.

export { COMMENT_MAX, OPERATOR_BLOCK, operatorBlock, PRIORITY_ORDER, rowByRef, targets } from './common';
export type { TriageHelpers } from './common';
export { describeCommand, startRun } from './commands';
export { blockerOptions, filteredOptions, nextStageIndex, reduceTriageInput, shownOptions } from './dialogs';
export { reduceTriageKey } from './keys';
export { jumpBack, jumpTo, selectArrived, sortBy } from './navigation';
export { paletteOptions } from './palette';

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
