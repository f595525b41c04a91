import { EventStream, EventStreamOptions, runCharge, SvcApi, SvcHttpError } from '@app/client';

import type { ProjectListResponse } from '@app/contracts';

import type { Action } from '../state/actions';
import type { State } from '../state/state';
import type { StreamNotice, WhoAmIResponse } from '../wire';
import type { FrontierPrefetch } from './frontier-live';

// What the effect modules (live sync, detail loading, commands) share: the config, the state, and each other's
// entry points. Each module owns its own timers and in-flight state; the Effects class wires them together.

// history: the project's audit log, the Events tab's change rows
export type Part = 'projects' | 'frontier' | 'claims' | 'machines' | 'events' | 'history';

export interface EffectsConfig {
  api: SvcApi;
  token: string | null;
  openStream: (options: EventStreamOptions) => EventStream;
  charge?: typeof runCharge;
  harness: string;
  model: string;
  dispatchCommand: string | null;
  demoBacklogPath: string | null;
  // the stream's reconnection backoff ceiling (ms)
  maxRetryMs?: number;
  // requests main sent before loading the screen code, so the daemon works while the TUI starts
  prefetch?: Prefetch;
  // runs an editor on a file with the screen suspended (E); resolves with its exit code
  editFile?: (path: string) => Promise<number>;
  // how often the TUI's session heartbeats while it holds claims (default 5 minutes; SVC_TUI_HEARTBEAT_MS)
  heartbeatMs?: number;
  // the program `o` hands a URL to (tui.json "opener"; default open on macOS, xdg-open elsewhere)
  opener?: string;
}

export interface Prefetch {
  identity: Promise<[WhoAmIResponse, ProjectListResponse]>;
  frontier: FrontierPrefetch | null;
}

export interface EffectsContext {
  readonly config: EffectsConfig;
  readonly state: State;
  readonly stopped: boolean;
  dispatch(action: Action): void;
  // ask live sync to refetch parts (coalesced)
  refetch(parts: Part[]): void;
  loadDetail(ref: string, delay?: number): void;
  // every stream notice, after live sync's own refetches (the Events tab shows item changes from them)
  noticed(notice: StreamNotice): void;
  // a fatal answer (no daemon, credential refused): the failure screen, retried in the background
  failed(err: unknown): void;
}

export function describe(err: unknown): string {
  if (err instanceof SvcHttpError) return `${err.code}: ${err.body.message}`;
  return err instanceof Error ? err.message : String(err);
}
