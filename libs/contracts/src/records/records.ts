// The MCP server's JSON schemas are checked against these in mcp/schemas.ts.

// Only the active members and credentials of the writer's organization see or mark it.
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

export interface OuroborosEntryRequest {
  agent: string;
  category: string;
  body: string;
  context?: string;
  // when the observation was made (ISO 8601); default now
  timestamp?: string;
}

export interface OuroborosListQuery {
  agent?: string;
  category?: string;
  reviewed?: '0' | '1';
  archived?: '0' | '1';
  limit?: number;
}

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
