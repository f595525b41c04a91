import type { HistoryWalk } from './line-editor';
import type {
  ChangeRecordWire,
  ClaimHolder,
  ConnectedMachineWire,
  DbClaimResponse,
  EpicTaskWire,
  EventWire,
  ExplainResponse,
  FrontierResultWire,
  ItemWire,
  MachineAuthorizationRequest,
  ProjectWire,
  ScheduleStep,
} from '../wire';
import type { FrontierWindowWire, SortKey } from '@app/contracts';
import type { DetailEdge } from './edges';
import type { Pipeline } from './pipeline';

export const TABS = ['runnable', 'blocked', 'frozen', 'machines', 'events'] as const;
export type Tab = (typeof TABS)[number];
export type FrontierTab = 'runnable' | 'blocked' | 'frozen';
export const TAB_LABELS: Record<Tab, string> = {
  runnable: 'Runnable',
  blocked: 'Blocked',
  frozen: 'Frozen',
  machines: 'Machines',
  events: 'Events',
};

export function isFrontierTab(tab: Tab): tab is FrontierTab {
  return tab === 'runnable' || tab === 'blocked' || tab === 'frozen';
}

export type ConnectionState = 'connecting' | 'live' | 'reconnecting' | 'offline';

export interface Failure {
  kind: 'no_daemon' | 'unauthorized' | 'error';
  title: string;
  lines: string[];
}

export interface Cursor {
  // the selection follows the item, not the row number: ref wins over index when the list changes
  key: string | null;
  index: number;
}

export type Dialog =
  | {
      kind: 'charge';
      mode: 'top' | 'selected';
      phase: 'loading' | 'confirm' | 'running';
      ref: string | null;
      step: ScheduleStep | null;
      focus: 'no' | 'yes';
      queued?: 'yes' | null;
    }
  | {
      kind: 'code';
      action: 'approve' | 'deny';
      requestId: string;
      machineName: string;
      machineId?: string;
      input: string;
      warning: string | null;
      busy: boolean;
    }
  // code null: deny by the request id alone (no code typed)
  | {
      kind: 'confirm-deny';
      requestId: string;
      machineName: string;
      machineId?: string;
      code: string | null;
      focus: 'no' | 'yes';
      busy: boolean;
    }
  | { kind: 'confirm-revoke'; machineId: string; machineName: string; focus: 'no' | 'yes'; busy: boolean }
  | { kind: 'view'; title: string; lines: string[]; scroll: number }
  | {
      kind: 'confirm-approve';
      ref: string;
      stage: string;
      environment: string | null;
      since: string;
      focus: 'no' | 'yes';
      busy: boolean;
    }
  | { kind: 'help'; filter: string; scroll?: number }
  | { kind: 'projects'; index: number; key?: string | null; filter?: string; filtering?: boolean }
  | ItemHistoryDialog
  | TriageDialog;

export interface ItemHistoryDialog {
  kind: 'history';
  ref: string;
  changes: ChangeRecordWire[] | null;
  next: string | null;
  loading: boolean;
  error: string | null;
  scroll: number;
}

// Each runs through the same SvcApi function as the command line; its inverse is computed by the effects from the
// item as it was just before the write.
export type TriageCommand =
  | { op: 'status'; ref: string; to: string }
  | { op: 'priority'; ref: string; to: string }
  | { op: 'title'; ref: string; to: string }
  | { op: 'block'; ref: string; reason: string }
  | { op: 'unblock'; ref: string }
  | { op: 'freeze'; ref: string }
  | { op: 'unfreeze'; ref: string }
  | { op: 'release'; ref: string; session: number; holder: string }
  | { op: 'create'; project: string; title: string; priority: string; blockedBy: string | null }
  | { op: 'dep-add'; dependent: string; blocker: string; gate_point: string; satisfaction: string }
  | { op: 'dep-remove'; dependent: string; blocker: string; gate_point: string }
  | { op: 'body'; ref: string; body: string }
  | { op: 'section'; ref: string; name: string; content: string }
  | { op: 'comment'; ref: string; body: string };

export interface PickerOption {
  value: string;
  label: string;
  note?: string;
  current?: boolean;
  terminal?: boolean;
}

export type PickerPurpose = 'status' | 'priority' | 'new-priority' | 'new-blocker' | 'dependency' | 'palette' | 'tree';
// 'comment': `m`, a multi-line comment on the item (enter breaks the line, C-s posts it)
export type InputPurpose = 'title' | 'block' | 'new-title' | 'comment';

export interface NewItemDraft {
  title: string;
  priority: string;
}

export type TriageDialog =
  | {
      kind: 'picker';
      purpose: PickerPurpose;
      refs: string[];
      title: string;
      options: PickerOption[] | null;
      filter: string;
      index: number;
      draft?: NewItemDraft;
      next?: boolean;
      // the palette's Tab: the candidates it cycles through (kept while Tab is pressed again)
      completion?: PickerOption[];
    }
  | { kind: 'input'; purpose: InputPurpose; refs: string[]; title: string; prompt: string; value: string }
  | {
      kind: 'triage-confirm';
      title: string;
      lines: string[];
      commands: TriageCommand[];
      focus: 'no' | 'yes';
      undo: boolean;
      redo?: boolean;
      quit?: boolean;
    }
  | { kind: 'refusal'; title: string; lines: string[]; scroll?: number };

export interface TriageRun {
  id: number;
  commands: TriageCommand[];
  undo: boolean;
  redo?: boolean;
}

export interface TriageResult {
  command: TriageCommand;
  ok: boolean;
  message: string;
  detail?: string[];
  inverse?: TriageCommand | null;
  created?: string;
  // the daemon could not be reached: the write was not made, and nothing refused it
  unreachable?: boolean;
}

export const UNDO_DEPTH = 50;

export interface TriageState {
  marked: string[];
  anchor: string | null;
  run: TriageRun | null;
  runs: number;
  undo: TriageCommand[][];
  // what an undo reversed, the newest last: C-r does it again; a new change empties it
  redo: TriageCommand[][];
  // a created item, or the one item a run changed: selected when the frontier shows it (in arrivingTab, when the
  // change decides the bucket), so the selection follows it into another tab
  arriving: string | null;
  arrivingTab: FrontierTab | null;
  back: { tab: Tab; key: string | null }[];
  history: string[];
}

export interface Detail {
  ref: string;
  explain: ExplainResponse | null;
  item: ItemWire | null;
  edges: DetailEdge[] | null;
  dbClaim: DbClaimResponse | null;
  pipeline: Pipeline | null;
  epicTasks: EpicTaskWire[] | null;
  history: ChangeRecordWire[] | null;
  errors: string[];
  // bumped on every change, so views can skip re-formatting an unchanged pane
  version: number;
}

export type StatusTone = 'info' | 'ok' | 'warn' | 'error';

export interface NamedView {
  name: string;
  filter?: string;
  sort?: SortKey;
  desc?: boolean;
  tab?: Tab;
}

export interface UserCommand {
  name: string;
  key?: string;
  run?: string;
  open?: string;
  help?: string;
}

export interface ExternalRequest {
  id: number;
  ref: string;
  command: string | null;
}

export interface StatusLine {
  text: string;
  tone: StatusTone;
  at: number;
}

export const EVENTS_CAPACITY = 500;
export const CHANGES_PAGE = 200;
export const DETAIL_HISTORY = 6;
export const ITEM_HISTORY_PAGE = 50;

// An info, ok or warning line goes after this long; an error stays until the next key.
export const STATUS_TTL_MS = 4_000;

export interface State {
  readOnly: boolean;
  url: string;
  actor: string | null;
  actorAdmin: boolean;
  // the executor session this TUI's charges claim under (heartbeats keep its claims while the TUI is open)
  session: number | null;
  quitting: 'now' | 'after-run' | null;
  connection: ConnectionState;
  failure: Failure | null;
  projects: ProjectWire[] | null;
  project: string | null;
  // the whole answer, or a window of one list (docs/user-guide.md, "A project too large to hold")
  frontier: FrontierResultWire | FrontierWindowWire | null;
  frontierProject: string | null;
  claims: Record<string, ClaimHolder>;
  machines: MachineAuthorizationRequest[];
  machinesView: 'pending' | 'connected';
  connected: ConnectedMachineWire[];
  showReads: boolean;
  actorNames: Record<string, string>;
  detailCache: Record<string, Detail>;
  events: EventWire[];
  // the Events tab merges it with the events by time (docs/adr/0048)
  changes: ChangeRecordWire[];
  changesProject: string | null;
  // the Events tab's newest row when the user last saw the top: rows above it arrived while they were scrolled
  // away (the marker counts them); null: following the top
  eventsSeen: string | null;
  tab: Tab;
  cursors: Record<Tab, Cursor>;
  filter: string;
  filtering: boolean;
  detailOpen: boolean;
  paneHidden: boolean;
  detailScroll: number;
  detail: Detail | null;
  sort?: SortKey;
  sortDesc?: boolean;
  treeEdges?: Record<string, DetailEdge[] | null>;
  edgeCursor?: { ref: string; key: string } | null;
  dialog: Dialog | null;
  status: StatusLine | null;
  dataAt: number | null;
  importing: boolean;
  now: number;
  pageSize: number;
  triage: TriageState;
  line: PromptLine;
  filterHistory: string[];
  views: NamedView[];
  userCommands: UserCommand[];
  external: ExternalRequest | null;
}

export interface PromptLine {
  owner: string | null;
  cursor: number | null;
  kill: string;
  walk: HistoryWalk;
}

export function initialState(
  options: { readOnly?: boolean; url?: string; project?: string | null; now?: number } = {},
): State {
  const cursor = (): Cursor => ({ key: null, index: 0 });
  return {
    line: { owner: null, cursor: null, kill: '', walk: { at: null, draft: '' } },
    filterHistory: [],
    views: [],
    userCommands: [],
    external: null,
    readOnly: options.readOnly ?? false,
    url: options.url ?? '',
    actor: null,
    actorAdmin: false,
    session: null,
    quitting: null,
    connection: 'connecting',
    failure: null,
    projects: null,
    project: options.project ?? null,
    frontier: null,
    frontierProject: null,
    claims: {},
    machines: [],
    machinesView: 'pending',
    connected: [],
    showReads: false,
    actorNames: {},
    detailCache: {},
    events: [],
    changes: [],
    changesProject: null,
    eventsSeen: null,
    tab: 'runnable',
    cursors: {
      runnable: cursor(),
      blocked: cursor(),
      frozen: cursor(),
      machines: cursor(),
      events: cursor(),
    },
    filter: '',
    filtering: false,
    detailOpen: false,
    paneHidden: false,
    detailScroll: 0,
    detail: null,
    dialog: null,
    status: null,
    dataAt: null,
    importing: false,
    now: options.now ?? Date.now(),
    pageSize: 10,
    triage: {
      marked: [],
      anchor: null,
      run: null,
      runs: 0,
      undo: [],
      redo: [],
      arriving: null,
      arrivingTab: null,
      back: [],
      history: [],
    },
  };
}
