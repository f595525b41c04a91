import { HttpStatus } from '@nestjs/common';

import { errorFactory, ErrorStatusTable, FieldProblems } from '../common/domain-error';

export enum WorkflowErrorCode {
  WorkflowNotFound = 'workflow_not_found',
  InvalidWorkflowDefinition = 'invalid_workflow_definition',
  UnknownGateType = 'unknown_gate_type',
  GateUnavailable = 'gate_unavailable',
}

export const WORKFLOW_ERROR_STATUS: ErrorStatusTable<WorkflowErrorCode> = {
  [WorkflowErrorCode.WorkflowNotFound]: HttpStatus.NOT_FOUND,
  [WorkflowErrorCode.InvalidWorkflowDefinition]: HttpStatus.BAD_REQUEST,
  [WorkflowErrorCode.UnknownGateType]: HttpStatus.BAD_REQUEST,
  [WorkflowErrorCode.GateUnavailable]: HttpStatus.CONFLICT,
};

const workflowError = errorFactory(WORKFLOW_ERROR_STATUS);

export const workflowNotFound = (id: string, version?: number) =>
  workflowError(
    WorkflowErrorCode.WorkflowNotFound,
    version === undefined ? `no workflow ${id}` : `workflow ${id} has no version ${version}`,
    { workflow_id: id, ...(version === undefined ? {} : { version }) },
  );

export function definitionInvalid(problems: FieldProblems[], prefix = '') {
  const fields = problems.map((p) => ({ field: prefix + p.field, problems: p.problems }));
  return workflowError(
    WorkflowErrorCode.InvalidWorkflowDefinition,
    fields.map((f) => `${f.field}: ${f.problems.join(', ')}`).join('; '),
    { fields },
  );
}

export const unknownGateType = (unknown: string[], known: string[]) =>
  workflowError(WorkflowErrorCode.UnknownGateType, `no checker for gate type ${unknown.join(', ')}`, {
    gate_types: unknown,
    known,
  });

export const gateUnavailable = (stage: string, gate: string) =>
  workflowError(
    WorkflowErrorCode.GateUnavailable,
    `stage ${stage} requires gate ${gate}, which this daemon does not provide`,
    { gate, stage },
  );
