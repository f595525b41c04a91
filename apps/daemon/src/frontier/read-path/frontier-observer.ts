import { Injectable } from '@nestjs/common';

export type GraphRefreshOutcome = 'load' | 'changed' | 'unchanged' | 'failed';

export interface FrontierObservation {
  computed?(durationMs: number): void;
  graphRefreshed?(durationMs: number, outcome: GraphRefreshOutcome): void;
  graphsEvicted?(count: number): void;
}

// The frontier knows nothing of its listeners (the dependency points from the observer to the frontier); a
// listener that throws is ignored.
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

  graphsEvicted(count: number): void {
    for (const listener of this.listeners) safely(() => listener.graphsEvicted?.(count));
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
