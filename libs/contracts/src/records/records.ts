// Wire types of the records routes (docs/api-backlog.md): ouroboros entries. One definition: the daemon answers
// these, the client and the MCP server read them (its JSON schema is checked against them in mcp/schemas.ts).

// An ouroboros entry: an observation for the people who improve the workflow. It belongs to one organization (the
// slug), the one its writer acted in; only that organization's active members and credentials see or mark it.
export interface OuroborosEntryWire {
  id: number;
  organization: string;
  timestamp: string;
  agent: string;
  context: string | null;
  category: string;
  body: string;
  reviewed_at: string | null;
  archived_at: string | null;
  created_at: string;
}

export interface OuroborosListResponse {
  entries: OuroborosEntryWire[];
}

// POST /v1/records/ouroboros
export interface OuroborosEntryRequest {
  agent: string;
  category: string;
  body: string;
  context?: string;
  // when the observation was made (ISO 8601); default now
  timestamp?: string;
}

// GET /v1/records/ouroboros filters
export interface OuroborosListQuery {
  agent?: string;
  category?: string;
  reviewed?: '0' | '1';
  archived?: '0' | '1';
  limit?: number;
}

// A shepherd verdict on a transition of an item (POST/GET /v1/records/shepherd-verdicts).
export interface VerdictWire {
  id: number;
  item: string;
  transition: string;
  worker: string;
  verdict: string;
  caveats: string | null;
  attempt: number;
  created_at: string;
}

export interface VerdictListResponse {
  verdicts: VerdictWire[];
}

export interface AddVerdictRequest {
  item: string;
  transition: string;
  worker: string;
  verdict: string;
  caveats?: string;
  attempt?: number;
}

// The disposition of one caveat (POST/GET /v1/records/caveat-dispositions).
export interface DispositionWire {
  id: number;
  item: string;
  transition: string;
  attempt: number;
  caveat_num: number;
  caveat_text: string;
  disposition: string;
  resolution_details: string | null;
  verdict_id: number | null;
  created_at: string;
}

export interface DispositionListResponse {
  dispositions: DispositionWire[];
}

export interface AddDispositionRequest {
  item: string;
  transition: string;
  attempt?: number;
  caveat_num: number;
  caveat_text: string;
  disposition: string;
  resolution_details?: string;
  verdict_id?: number;
}
