import { HttpStatus } from '@nestjs/common';

import { DomainError, errorFactory, ErrorStatusTable } from '../common/domain-error';

// An import refuses the whole file: a bad document is 400, a clash with what the server holds is 409.
export enum TransferErrorCode {
  InvalidBacklog = 'invalid_backlog',
  PrefixMismatch = 'prefix_mismatch',
  ProjectNotEmpty = 'project_not_empty',
  PrefixTaken = 'prefix_taken',
  DeploymentFlowExists = 'deployment_flow_exists',
  DeploymentRunExists = 'deployment_run_exists',
  // an item of the file breaks its workflow or its project's title policy: a bad document
  StageNotInWorkflow = 'stage_not_in_workflow',
  TitleTooLong = 'title_too_long',
  UnresolvedRefs = 'unresolved_refs',
  NotAnEpic = 'not_an_epic',
  UnknownTask = 'unknown_task',
  WorkflowNotFound = 'workflow_not_found',
  // replacing a project (and reading its snapshots) is its organization's admins' act
  ProjectAdminRequired = 'project_admin_required',
  SnapshotNotFound = 'snapshot_not_found',
  // what a file says happened must be what the routes would have let happen
  StatusNotReachable = 'status_not_reachable',
  RunNotRecordable = 'run_not_recordable',
  ApprovalStageRemoved = 'approval_stage_removed',
}

export const TRANSFER_ERROR_STATUS: ErrorStatusTable<TransferErrorCode> = {
  [TransferErrorCode.InvalidBacklog]: HttpStatus.BAD_REQUEST,
  [TransferErrorCode.PrefixMismatch]: HttpStatus.CONFLICT,
  [TransferErrorCode.ProjectNotEmpty]: HttpStatus.CONFLICT,
  [TransferErrorCode.PrefixTaken]: HttpStatus.CONFLICT,
  [TransferErrorCode.DeploymentFlowExists]: HttpStatus.CONFLICT,
  [TransferErrorCode.DeploymentRunExists]: HttpStatus.CONFLICT,
  [TransferErrorCode.StageNotInWorkflow]: HttpStatus.BAD_REQUEST,
  [TransferErrorCode.TitleTooLong]: HttpStatus.BAD_REQUEST,
  [TransferErrorCode.UnresolvedRefs]: HttpStatus.BAD_REQUEST,
  [TransferErrorCode.NotAnEpic]: HttpStatus.BAD_REQUEST,
  [TransferErrorCode.UnknownTask]: HttpStatus.BAD_REQUEST,
  [TransferErrorCode.WorkflowNotFound]: HttpStatus.NOT_FOUND,
  [TransferErrorCode.ProjectAdminRequired]: HttpStatus.FORBIDDEN,
  [TransferErrorCode.SnapshotNotFound]: HttpStatus.NOT_FOUND,
  [TransferErrorCode.StatusNotReachable]: HttpStatus.CONFLICT,
  [TransferErrorCode.RunNotRecordable]: HttpStatus.CONFLICT,
  [TransferErrorCode.ApprovalStageRemoved]: HttpStatus.CONFLICT,
};

const transferError = errorFactory(TRANSFER_ERROR_STATUS);

export const invalidBacklog = (problems: string[]) =>
  transferError(TransferErrorCode.InvalidBacklog, problems.slice(0, 20).join('; '), {
    problems: problems.slice(0, 50),
  });

export const prefixMismatch = (project: string, held: string, file: string) =>
  transferError(TransferErrorCode.PrefixMismatch, `project ${project} uses prefix ${held}, the file ${file}`);

export const projectNotEmpty = (project: string, items: number) =>
  transferError(
    TransferErrorCode.ProjectNotEmpty,
    `project ${project} already has ${items} items; import with --replace to overwrite it`,
    { items },
  );

export const importPrefixTaken = (prefix: string) =>
  transferError(TransferErrorCode.PrefixTaken, `public_item_prefix ${prefix} is already used`);

export const flowExistsElsewhere = (flow: string) =>
  transferError(TransferErrorCode.DeploymentFlowExists, `deployment flow ${flow} already exists in another project`);

export const runExists = (run: string | undefined) =>
  transferError(TransferErrorCode.DeploymentRunExists, `deployment run ${run} already exists`);

const ITEM_REFUSALS: ReadonlySet<string> = new Set([
  TransferErrorCode.StageNotInWorkflow,
  TransferErrorCode.TitleTooLong,
]);

export function itemOfFileRefused(ref: string, err: DomainError): DomainError {
  if (!ITEM_REFUSALS.has(err.code)) return err;
  return transferError(err.code as TransferErrorCode, `${ref}: ${err.message}`, err.extra);
}

export const unresolvedRefs = (refs: string[]) =>
  transferError(
    TransferErrorCode.UnresolvedRefs,
    `these refs are neither items of the file nor existing items: ${refs.join(', ')}`,
    { refs },
  );

export const notAnEpicItem = (ref: string) => transferError(TransferErrorCode.NotAnEpic, `${ref} is not an epic item`);

export const unknownEpicTasks = (epic: string, strays: number[]) =>
  transferError(TransferErrorCode.UnknownTask, `${epic}: no tasks ${[...new Set(strays)].join(', ')}`);

export const pinnedWorkflowMissing = (ref: string, workflow: string, version: number) =>
  transferError(
    TransferErrorCode.WorkflowNotFound,
    `${ref}: workflow ${workflow} v${version} is neither in the file nor registered`,
  );

export const projectAdminRequired = (project: string, what: string) =>
  transferError(
    TransferErrorCode.ProjectAdminRequired,
    `${what} needs an admin of the organization of project ${project}`,
    { project, rule: 'project_admin' },
  );

export const snapshotNotFound = (project: string, id: string) =>
  transferError(TransferErrorCode.SnapshotNotFound, `project ${project} has no snapshot ${id}`, { project });

export const statusNotReachable = (ref: string, from: string, status: string, gate: DomainError) =>
  transferError(TransferErrorCode.StatusNotReachable, `${ref} cannot be imported at ${status}: ${gate.message}`, {
    item: ref,
    from,
    status,
    rule: gate.code,
    detail: gate.extra,
  });

export const runNotRecordable = (run: string, refusal: DomainError) =>
  transferError(TransferErrorCode.RunNotRecordable, `deployment run ${run}: ${refusal.message}`, {
    run,
    rule: refusal.code,
    detail: refusal.extra,
  });

export const approvalStageRemoved = (flow: string, stage: string, role: string) =>
  transferError(
    TransferErrorCode.ApprovalStageRemoved,
    `deployment flow ${flow}: the file drops or weakens its approval stage ${stage} (${role}); no route removes an approval stage`,
    { flow, stage, role },
  );
