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
  // GET /v1/projects/<id>/snapshots/<snapshot_id> holds the project as it was before a replace; null when nothing was
  // replaced
  snapshot_id: string | null;
  // what the replaced project held that this import does not carry (all of it is in the snapshot)
  not_carried: ImportNotCarried;
}

export interface HeldComment {
  item: string;
  author: string | null;
  session_id: number | null;
  harness: string | null;
  path: string;
  body: string;
  created_at: string;
}

export interface ImportNotCarried {
  // claims on the replaced items (the claiming sessions claim again)
  claims: { item: string; session_id: number; actor: string | null; harness: string | null; expires_at: string }[];
  // approvals of the replaced runs that the file does not carry, and approvals in the file that this server never
  // recorded on this project (they do not count)
  deployment_approvals: {
    run_id: string;
    stage_index: number;
    stage: string;
    approved_by: string | null;
    reason: 'not_in_file' | 'not_recorded_here';
  }[];
}

export interface ProjectSnapshotSummary {
  id: string;
  project: string;
  taken_at: string;
  taken_by: string | null;
  reason: string;
  items: number;
}

export interface ProjectSnapshotList {
  project: string;
  snapshots: ProjectSnapshotSummary[];
}

// GET /v1/projects/<id>/snapshots/<snapshot_id>: the export document as it was (import it to restore) and what the
// format does not carry
export interface ProjectSnapshot extends ProjectSnapshotSummary {
  document: ExportDocument;
  // comments: absent in snapshots taken before comments were kept (the backlog format carries none)
  held: { claims: ImportNotCarried['claims']; comments?: HeldComment[] };
}

export interface ExportDocument {
  format: string;
  items?: unknown[];
  [key: string]: unknown;
}
