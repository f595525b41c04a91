// A claim means "mine": doing the work on a claimed item is the holder's. Triage that steers rather than does the
// work (priority, block, freeze, dependencies) stays open to the team and reaches the holder as a notice.

export type ItemWriteKind = 'status' | 'edit' | 'resolve' | 'db_claim' | 'triage';

export const WORK_KINDS: readonly ItemWriteKind[] = ['status', 'edit', 'resolve', 'db_claim'];

export interface ClaimWriter {
  actorId: number | null;
  sessionId: number | null;
}

export interface ClaimHolder {
  sessionId: number;
  actorId: number | null;
  actor: string | null;
  harness: string;
  expiresAt: Date;
}

export type ClaimDecision =
  | { allow: true; forced: boolean; releasesClaim: boolean; notifiesHolder: boolean }
  | { allow: false; code: 'item_claimed_elsewhere' | 'force_not_allowed'; holder: ClaimHolder };

// The holder is the session that claimed. The same actor's writes outside any session count as the holder's; another
// session (even of the same actor, as two agents sharing one credential are) or another actor does not. A project
// admin may override with `force`: the write goes through and the claim is released (its holder is told).
export function decideClaim(input: {
  kind: ItemWriteKind;
  writer: ClaimWriter;
  holder: ClaimHolder | null;
  force: boolean;
  isProjectAdmin: boolean;
}): ClaimDecision {
  const { kind, writer, holder } = input;
  if (holder === null) return { allow: true, forced: false, releasesClaim: false, notifiesHolder: false };
  if (isHolder(writer, holder)) return { allow: true, forced: false, releasesClaim: false, notifiesHolder: false };
  if (kind === 'triage') return { allow: true, forced: false, releasesClaim: false, notifiesHolder: true };
  if (input.force) {
    if (!input.isProjectAdmin) return { allow: false, code: 'force_not_allowed', holder };
    return { allow: true, forced: true, releasesClaim: true, notifiesHolder: true };
  }
  return { allow: false, code: 'item_claimed_elsewhere', holder };
}

export function isHolder(writer: ClaimWriter, holder: ClaimHolder): boolean {
  if (writer.sessionId !== null) return writer.sessionId === holder.sessionId;
  return writer.actorId !== null && writer.actorId === holder.actorId;
}

export function claimRefusalMessage(ref: string, holder: ClaimHolder): string {
  const who = holder.actor ?? 'an unknown actor';
  return (
    `${ref} is claimed by ${who} (session ${holder.sessionId}, ${holder.harness}) until ` +
    `${holder.expiresAt.toISOString()}; only the holder does its work (a project admin may pass force)`
  );
}
