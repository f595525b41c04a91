// POST /v1/import (svc-backlog/v1 document in, counts out)
export interface ImportResponse {
  project: string;
  replaced: boolean;
  items: number;
  sections: number;
  dependencies: number;
  epic_tasks: number;
  shepherd_verdicts: number;
  caveat_dispositions: number;
  deployment_flows: number;
  environments: number;
  deployment_runs: number;
  workflow_versions_created: number;
}

// GET /v1/export: the whole svc-backlog/v1 document (validated by the daemon on import).
export interface ExportDocument {
  format: string;
  items?: unknown[];
  [key: string]: unknown;
}
