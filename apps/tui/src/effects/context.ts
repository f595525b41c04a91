import { EventStream, EventStreamOptions, runCharge, SvcApi, SvcHttpError } from '@app/client';

import type { ProjectListResponse } from '@app/contracts';

import type { Action } from '../state/actions';
import type { State } from '../state/state';
import type { StreamNotice, WhoAmIResponse } from '../wire';
import type { FrontierPrefetch } from './frontier-live';

// Each effect module owns its own timers and in-flight state; the Effects class wires them together.

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
  maxRetryMs?: number;
  // sent before the screen code loaded, so the daemon works while the TUI starts
  prefetch?: Prefetch;
  editFile?: (path: string) => Promise<number>;
  heartbeatMs?: number;
  opener?: string;
  // above this many items the TUI holds a window of the answer (frontier-live.ts, WINDOW_ABOVE)
  windowAbove?: number;
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
  refetch(parts: Part[]): void;
  loadDetail(ref: string, delay?: number): void;
  noticed(notice: StreamNotice): void;
  failed(err: unknown): void;
}

export function describe(err: unknown): string {
  if (err instanceof SvcHttpError) return `${err.code}: ${err.body.message}`;
  return err instanceof Error ? err.message : String(err);
}
