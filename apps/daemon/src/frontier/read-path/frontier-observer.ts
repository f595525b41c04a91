import { Injectable } from '@nestjs/common';

// How a cached project graph was brought up to date before a read: loaded in full, refreshed from a delta that
// changed it, found unchanged, or failed part-way.
export type GraphRefreshOutcome = 'load' | 'changed' | 'unchanged' | 'failed';

export interface FrontierObservation {
  // compute_frontier over a graph (libs/core), in milliseconds
  computed?(durationMs: number): void;
  // the graph cache's load or refresh before a read, in milliseconds
  graphRefreshed?(durationMs: number, outcome: GraphRefreshOutcome): void;
}

// The frontier's timings for whoever listens (the metrics feature): the frontier knows nothing of its listeners, so
// the dependency points from the observer to the frontier, never back. A listener that throws is ignored.
@Injectable()
export class FrontierObserver {
  private readonly listeners = new Set<FrontierObservation>();

  subscribe(listener: FrontierObservation): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  computed(durationMs: number): void {
    for (const listener of this.listeners) safely(() => listener.computed?.(durationMs));
  }

  graphRefreshed(durationMs: number, outcome: GraphRefreshOutcome): void {
    for (const listener of this.listeners) safely(() => listener.graphRefreshed?.(durationMs, outcome));
  }
}

function safely(call: () => void): void {
  try {
    call();
  } catch {
    // an observer never breaks a frontier read
  }
}

export function elapsedMs(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e6;
}
