import { Injectable } from '@nestjs/common';

// ran: this replica did the work; skipped: it did not (another replica holds the round's lock, or this replica's
// previous run is still going); failed: it tried and failed (logged). Summed over replicas, `ran` counts rounds.
export type SweepOutcome = 'ran' | 'failed' | 'skipped';

export type SweepListener = (sweep: string, outcome: SweepOutcome, durationMs: number) => void;

@Injectable()
export class SweepObserver {
  private readonly listeners = new Set<SweepListener>();

  subscribe(listener: SweepListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  ran(sweep: string, outcome: SweepOutcome, durationMs: number): void {
    for (const listener of this.listeners) {
      try {
        listener(sweep, outcome, durationMs);
      } catch {
        // an observer never breaks a sweep
      }
    }
  }
}
