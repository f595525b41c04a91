// Headers a client sends with a write so the record and the claim rule know who is writing: the executor session
// (an agent's; a person at the command line or in the TUI sends none) and the front end (cli, tui, mcp).
export const SESSION_HEADER = 'x-svc-session';
export const CLIENT_HEADER = 'x-svc-client';

// offline: svc admin token --offline, straight to the database with no daemon (break-glass)
export const WRITE_PATHS = ['cli', 'tui', 'mcp', 'http', 'import', 'sweep', 'sql', 'offline'] as const;
export type WritePath = (typeof WRITE_PATHS)[number];
// What a front end may name itself in CLIENT_HEADER (import and sweep are named by the daemon, sql by nobody).
export const CLIENT_PATHS: readonly WritePath[] = ['cli', 'tui', 'mcp', 'http'];

export interface ChangeRecordWire {
  id: string;
  at: string;
  actor: string | null;
  credential: { kind: 'api_token' | 'machine_credential'; id: number } | null;
  session_id: number | null;
  harness: string | null;
  path: WritePath;
  forced: boolean;
  project: string | null;
  item_id: string | null;
  object: string;
  object_ref: string | null;
  action: string;
  field: string | null;
  before: unknown;
  after: unknown;
}

export interface HistoryResponse {
  item_id?: string;
  changes: ChangeRecordWire[];
  next_before: string | null;
}

export const DEFAULT_HISTORY_LIMIT = 50;
export const MAX_HISTORY_LIMIT = 500;

export interface SessionNoticeWire extends ChangeRecordWire {
  // claim_lost: a claim of the session was taken over, released by someone else or with the session; changed:
  // someone else changed an item the session holds (triage: priority, block, freeze, dependencies).
  kind: 'claim_lost' | 'changed';
}

export interface SessionNoticesResponse {
  session_id: number;
  notices: SessionNoticeWire[];
  // claims whose lease ran out and that nobody has taken over yet (they no longer protect the item)
  lapsed_claims: { item_id: string; expired_at: string }[];
  last_id: string;
}
