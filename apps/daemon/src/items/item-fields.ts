import { STRUCTURED_FIELDS } from '@app/contracts/backlog';

// Every field of the serialized item, in wire order; `items get <ref> <field>` reads any of them.
export const ITEM_WIRE_FIELDS = [
  'item_id',
  'title',
  'project',
  'workflow_id',
  'workflow_version_id',
  'workflow_version',
  'workflow_posture',
  'status',
  'priority',
  'frozen',
  'blocked',
  'blocked_reason',
  'github_issue',
  'deployed_to',
  'body',
  'merged_at',
  'created_at',
  'updated_at',
  'source',
  'owner',
  'deployment_flow',
  'deploy_stage',
  ...STRUCTURED_FIELDS,
  'db_mutation_profile',
  'db_compatibility_attestation',
  'spec_updated_at',
  'spec_updated_by',
  'resolution',
  'resolution_ref',
  'resolution_comment',
  'depends_on',
] as const;
export type ItemWireField = (typeof ITEM_WIRE_FIELDS)[number];

function omitFields<F extends ItemWireField, O extends F>(
  fields: readonly F[],
  ...omitted: O[]
): readonly Exclude<F, O>[] {
  return fields.filter((field): field is Exclude<F, O> => !(omitted as readonly F[]).includes(field));
}

// Item columns carried by a backlog document, in export order; `body` is the stored text, not the rendering.
export const ITEM_DOC_COLUMNS = omitFields(
  ITEM_WIRE_FIELDS,
  'item_id',
  'title',
  'project',
  'workflow_id',
  'workflow_version_id',
  'workflow_version',
);

// Columns an insert may set beyond the required ones; names are fixed here, never taken from input.
export const INSERTABLE_COLUMNS = omitFields(ITEM_DOC_COLUMNS, 'status', 'source');

// Fields a create copies from its request as given (workflow_posture is stored as JSON; the rest are set elsewhere).
export const CREATE_COPIED_FIELDS = omitFields(
  INSERTABLE_COLUMNS,
  'workflow_posture',
  'created_at',
  'updated_at',
  'db_mutation_profile',
  'db_compatibility_attestation',
  'spec_updated_at',
  'spec_updated_by',
  'resolution',
  'resolution_ref',
  'resolution_comment',
  'depends_on',
);

export const READABLE_FIELDS: readonly string[] = [...ITEM_WIRE_FIELDS, 'sections'];

export const PLAIN_WRITABLE_FIELDS = [
  'title',
  'priority',
  'owner',
  'github_issue',
  'deployed_to',
  'body',
  'merged_at',
  'deployment_flow',
  'deploy_stage',
  'workflow_posture',
] as const;
export type PlainWritableField = (typeof PLAIN_WRITABLE_FIELDS)[number];

export const NOT_NULL_FIELDS: readonly string[] = ['title', 'priority', 'workflow_posture'];

export const FIELD_OPERATIONS: Readonly<Record<string, string>> = {
  status: 'POST /v1/items/:ref/status (svc items status)',
  frozen: 'svc items freeze / unfreeze',
  blocked: 'svc items block / unblock',
  blocked_reason: 'svc items block --reason',
  resolution: 'svc items resolve',
  resolution_ref: 'svc items resolve',
  resolution_comment: 'svc items resolve',
  db_mutation_profile: 'db-claim-amend',
  db_compatibility_attestation: 'db-claim-amend',
  sections: 'svc sections upsert',
};

export interface NewItem {
  project: string;
  sequence: number;
  title: string;
  workflowId: string;
  workflowVersionId: number;
  status: string;
  source: string;
  values: Record<string, string | number | null>;
}
