import type { AdapterCategory, FrontierItem } from './vocabulary';

export const DEFAULT_WIP_CAP = 30;

export const WIP_STATUSES = ['implementing', 'reviewing-implementation'] as const;

export const CONDUCT_ADAPTERS: readonly AdapterCategory[] = ['conduct', 'advance'];

const IN_WIP: ReadonlySet<string> = new Set(WIP_STATUSES);

export function isWipStatus(status: string): boolean {
  return IN_WIP.has(status);
}

// The one rule for a WIP slot, shared by step 9 and the charge claim: conduct work takes a slot only when it is a
// new start; an item already implementing or reviewing-implementation is counted in wip_active already.
export function takesWipSlot(item: Pick<FrontierItem, 'adapter' | 'status'>): boolean {
  return wipClaim(item) === NEW_START;
}

export const NO_CLAIM = 0;
export const REENTRY = 1;
export const NEW_START = 2;

export function wipClaim(item: Pick<FrontierItem, 'adapter' | 'status'>): number {
  if (!CONDUCT_ADAPTERS.includes(item.adapter)) return NO_CLAIM;
  return IN_WIP.has(item.status) ? REENTRY : NEW_START;
}

// What the memo keeps per candidate for step 9 (`FrontierState.wipKind`): its claim in the low bits, and whether its
// adapter is `conduct` (the count of those the cap holds back is the WIP line's, read per answer).
export const CLAIM_BITS = 3;
export const CONDUCT_ADAPTER = 4;

export function wipKindOf(item: Pick<FrontierItem, 'adapter' | 'status'>): number {
  return wipClaim(item) | (item.adapter === 'conduct' ? CONDUCT_ADAPTER : 0);
}

// Step 9: the cap limits new starts only; re-entry is always eligible.
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
