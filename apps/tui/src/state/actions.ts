import type { FrontierDeltaWire } from '@app/contracts';

import type { KeyAction } from '../keys/keymap';
import type {
  ActorWire,
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
import type { DetailEdge } from './edges';
import type { Pipeline } from './pipeline';
import type {
  ConnectionState,
  Failure,
  PickerOption,
  PickerPurpose,
  StatusTone,
  TriageCommand,
  TriageResult,
} from './state';

export type DetailPart =
  | { part: 'explain'; value: ExplainResponse }
  | { part: 'item'; value: ItemWire }
  | { part: 'edges'; edges: DetailEdge[] }
  | { part: 'dbClaim'; value: DbClaimResponse | null }
  | { part: 'pipeline'; value: Pipeline | null }
  | { part: 'epicTasks'; value: EpicTaskWire[] | null }
  | { part: 'history'; value: ChangeRecordWire[] }
  | { part: 'error'; message: string };

export type Action =
  | { type: 'key'; action: KeyAction }
  | { type: 'input'; ch: string }
  | { type: 'select'; index: number }
  | { type: 'sort_column'; column: string }
  | { type: 'connection'; state: ConnectionState }
  | { type: 'failure'; failure: Failure | null }
  | { type: 'actor'; name: string; admin?: boolean }
  | { type: 'own_session'; id: number }
  | { type: 'quit_ask' }
  | { type: 'quit_stay' }
  | { type: 'view_apply'; name?: string; index?: number }
  | { type: 'user_command'; name: string }
  | { type: 'projects_loaded'; projects: ProjectWire[] }
  | { type: 'tree_edges_loaded'; root: string; ref: string; edges: DetailEdge[] | null }
  | { type: 'frontier_loaded'; project: string; frontier: FrontierResultWire }
  // lists and cursors follow without a scan
  | { type: 'frontier_delta'; project: string; frontier: FrontierResultWire; delta: FrontierDeltaWire }
  | { type: 'claims_loaded'; project: string; claims: ClaimHolder[] }
  | { type: 'machines_loaded'; requests: MachineAuthorizationRequest[] }
  | { type: 'events_loaded'; events: EventWire[] }
  | { type: 'changes_loaded'; project: string; changes: ChangeRecordWire[] }
  | { type: 'item_history_loaded'; ref: string; changes: ChangeRecordWire[]; next: string | null; older: boolean }
  | { type: 'item_history_failed'; ref: string; message: string }
  | { type: 'connected_loaded'; machines: ConnectedMachineWire[] }
  | { type: 'actors_loaded'; actors: ActorWire[] }
  | { type: 'view_open'; title: string; lines: string[] }
  | { type: 'revoke_done' }
  | { type: 'detail_loaded'; ref: string; data: DetailPart }
  | { type: 'charge_confirm'; step: ScheduleStep }
  | { type: 'charge_done' }
  | { type: 'code_result'; ok: boolean; warning?: string; close?: boolean }
  | { type: 'approve_done' }
  | { type: 'importing'; on: boolean }
  | { type: 'status'; text: string; tone: StatusTone }
  | { type: 'layout'; pageSize: number; helpScrollMax?: number }
  | { type: 'tick'; now: number }
  | { type: 'picker_options'; purpose: PickerPurpose; refs: string[]; options: PickerOption[] }
  | { type: 'triage_done'; id: number; results: TriageResult[] }
  | { type: 'triage_start'; commands: TriageCommand[] };
