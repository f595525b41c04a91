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
  return wipClaim(item) === NEW_START;
}

// An item's claim on the cap when runnable: NO_CLAIM (no conduct adapter), REENTRY (conduct work already in WIP,
// always eligible) or NEW_START (takes a slot). compute_frontier keeps it per item (FrontierState.wipKind).
export const NO_CLAIM = 0;
export const REENTRY = 1;
export const NEW_START = 2;

export function wipClaim(item: Pick<FrontierItem, 'adapter' | 'status'>): number {
  if (!CONDUCT_ADAPTERS.includes(item.adapter)) return NO_CLAIM;
  return IN_WIP.has(item.status) ? REENTRY : NEW_START;
}

// Step 9, one runnable item at a time in rank order: the cap limits new starts only. Slot-taking items are admitted
// while capacity remains and suppressed past it; re-entry is always eligible. admit answers ELIGIBLE, SUPPRESSED or
// NO_CLAIM (the item is not conduct work).
export const ELIGIBLE = 1;
export const SUPPRESSED = 2;

export class WipAdmission {
  private used = 0;

  constructor(private readonly remaining: number) {}

  admit(claim: number): number {
    if (claim === REENTRY) return ELIGIBLE;
    if (claim !== NEW_START) return NO_CLAIM;
    if (this.used < this.remaining) {
      this.used++;
      return ELIGIBLE;
    }
    return SUPPRESSED;
  }
}

// Step 9 over a runnable list.
export function applyWipCap(
  runnable: readonly FrontierItem[],
  wipCap: number,
  wipActive: number,
): { eligible: FrontierItem[]; suppressed: FrontierItem[]; remaining: number } {
  const remaining = Math.max(0, wipCap - wipActive);
  const admission = new WipAdmission(remaining);
  const eligible: FrontierItem[] = [];
  const suppressed: FrontierItem[] = [];
  for (const item of runnable) {
    const verdict = admission.admit(wipClaim(item));
    if (verdict === ELIGIBLE) eligible.push(item);
    else if (verdict === SUPPRESSED) suppressed.push(item);
  }
  return { eligible, suppressed, remaining };
}
