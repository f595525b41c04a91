import type { AdapterCategory, FrontierItem } from './vocabulary';

export const DEFAULT_WIP_CAP = 30;

// Statuses that count in wip_active (non-frozen items only).
export const WIP_STATUSES = ['implementing', 'reviewing-implementation'] as const;

// Implementation work counted as conduct for the WIP cap: fresh starts and implementation re-entry.
export const CONDUCT_ADAPTERS: readonly AdapterCategory[] = ['conduct', 'advance'];

const IN_WIP: ReadonlySet<string> = new Set(WIP_STATUSES);

export function isWipStatus(status: string): boolean {
  return IN_WIP.has(status);
}

// The one rule for a WIP slot, used by the frontier's step 9 and by the charge claim: conduct work takes a
// slot only when it is a new start. An item (issue or epic) already implementing or reviewing-implementation
// is re-entry: it is already counted in wip_active, so it stays eligible and takes nothing new.
export function takesWipSlot(item: Pick<FrontierItem, 'adapter' | 'status'>): boolean {
  return CONDUCT_ADAPTERS.includes(item.adapter) && !IN_WIP.has(item.status);
}

// Step 9: the cap limits new starts only. Slot-taking items are admitted in rank order while capacity
// remains and suppressed past it; re-entry is always eligible.
export function applyWipCap(
  runnable: readonly FrontierItem[],
  wipCap: number,
  wipActive: number,
): { eligible: FrontierItem[]; suppressed: FrontierItem[]; remaining: number } {
  const remaining = Math.max(0, wipCap - wipActive);
  const eligible: FrontierItem[] = [];
  const suppressed: FrontierItem[] = [];
  let used = 0;
  for (const item of runnable) {
    if (!CONDUCT_ADAPTERS.includes(item.adapter)) continue;
    if (!takesWipSlot(item)) {
      eligible.push(item);
    } else if (used < remaining) {
      used++;
      eligible.push(item);
    } else {
      suppressed.push(item);
    }
  }
  return { eligible, suppressed, remaining };
}
