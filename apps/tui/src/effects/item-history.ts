import { SvcConnectionError } from '@app/client';

import { ITEM_HISTORY_PAGE, State } from '../state/state';
import type { StreamNotice } from '../wire';
import { describe, EffectsContext } from './context';
import { REFETCH_INTERVAL_MS } from './live-sync';

// One request at a time; an answer for a closed or other dialog is dropped by the reducer.
export class ItemHistory {
  private refreshTimer: NodeJS.Timeout | null = null;

  constructor(private readonly ctx: EffectsContext) {}

  onAction(previous: State, next: State): void {
    const d = next.dialog;
    if (d?.kind !== 'history' || !d.loading) return;
    const p = previous.dialog;
    if (p?.kind === 'history' && p.ref === d.ref && p.loading) return;
    void this.fetch(d.ref, d.changes === null ? null : d.next);
  }

  // merged on top by the reducer
  onNotice(notice: StreamNotice): void {
    const d = this.ctx.state.dialog;
    if (d?.kind !== 'history' || d.changes === null || notice.data.name === 'FrontierComputed') return;
    if (notice.data.item_id !== d.ref && notice.data.ref !== d.ref) return;
    if (this.refreshTimer) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = null;
      void this.fetch(d.ref, null, true);
    }, REFETCH_INTERVAL_MS);
    this.refreshTimer.unref?.();
  }

  stop(): void {
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.refreshTimer = null;
  }

  private async fetch(ref: string, before: string | null, quiet = false): Promise<void> {
    try {
      const body = await this.ctx.config.api.itemHistory(ref, {
        limit: ITEM_HISTORY_PAGE,
        ...(before ? { before } : {}),
      });
      this.ctx.dispatch({
        type: 'item_history_loaded',
        ref,
        changes: body.changes,
        next: body.next_before,
        older: before !== null,
      });
    } catch (err) {
      if (quiet) return;
      const message = err instanceof SvcConnectionError ? 'the daemon does not answer' : describe(err);
      this.ctx.dispatch({ type: 'item_history_failed', ref, message });
    }
  }
}
