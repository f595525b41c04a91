import { HttpStatus } from '@nestjs/common';

import { WorkflowDefinition } from '@app/contracts/backlog';

import { stageIds } from '../workflows/workflow-definition';

import { errorFactory, ErrorStatusTable } from '../common/domain-error';

export enum ItemErrorCode {
  ItemNotFound = 'item_not_found',
  TitleTooLong = 'title_too_long',
  StageNotInWorkflow = 'stage_not_in_workflow',
  UnknownField = 'unknown_field',
  FieldNotWritable = 'field_not_writable',
  InvalidValue = 'invalid_value',
  // an item names a deployment flow its project does not have: a bad value in the request, hence 400
  DeploymentFlowNotFound = 'deployment_flow_not_found',
  ResolutionRefRequired = 'resolution_ref_required',
  InvalidSectionName = 'invalid_section_name',
  SectionNotFound = 'section_not_found',
}

export const ITEM_ERROR_STATUS: ErrorStatusTable<ItemErrorCode> = {
  [ItemErrorCode.ItemNotFound]: HttpStatus.NOT_FOUND,
  [ItemErrorCode.TitleTooLong]: HttpStatus.BAD_REQUEST,
  [ItemErrorCode.StageNotInWorkflow]: HttpStatus.CONFLICT,
  [ItemErrorCode.UnknownField]: HttpStatus.BAD_REQUEST,
  [ItemErrorCode.FieldNotWritable]: HttpStatus.BAD_REQUEST,
  [ItemErrorCode.InvalidValue]: HttpStatus.BAD_REQUEST,
  [ItemErrorCode.DeploymentFlowNotFound]: HttpStatus.BAD_REQUEST,
  [ItemErrorCode.ResolutionRefRequired]: HttpStatus.BAD_REQUEST,
  [ItemErrorCode.InvalidSectionName]: HttpStatus.BAD_REQUEST,
  [ItemErrorCode.SectionNotFound]: HttpStatus.NOT_FOUND,
};

const itemError = errorFactory(ITEM_ERROR_STATUS);

export const itemNotFound = (ref: string) => itemError(ItemErrorCode.ItemNotFound, `no item ${ref}`);

export const titleTooLong = (length: number, max: number) =>
  itemError(ItemErrorCode.TitleTooLong, `title is ${length} characters; this project's policy allows at most ${max}`, {
    max_length: max,
    length,
  });

export const stageNotInWorkflow = (status: string, definition: WorkflowDefinition, version: number) =>
  itemError(ItemErrorCode.StageNotInWorkflow, `${status} is not a stage of workflow ${definition.id} v${version}`, {
    status,
    workflow_id: definition.id,
    workflow_version: version,
    stages: stageIds(definition),
  });

export const unknownField = (field: string, fields: readonly string[]) =>
  itemError(ItemErrorCode.UnknownField, `${field.slice(0, 60)} is not an item field`, { fields });

export const fieldNotWritable = (field: string, how: string | undefined) =>
  itemError(
    ItemErrorCode.FieldNotWritable,
    `${field} is not written with items update${how ? `; use ${how}` : ' (it is maintained by the service)'}`,
    { field },
  );

export const invalidValue = (field: string, message: string) =>
  itemError(ItemErrorCode.InvalidValue, message, { field });

export const itemDeploymentFlowNotFound = (project: string, flow: string) =>
  itemError(ItemErrorCode.DeploymentFlowNotFound, `project ${project} has no deployment flow ${flow}`);

export const resolutionRefRequired = () =>
  itemError(ItemErrorCode.ResolutionRefRequired, 'a duplicate resolution names the item it duplicates');

export const invalidSectionName = () =>
  itemError(ItemErrorCode.InvalidSectionName, 'a section name is 1..100 letters, digits, spaces, _ . ( ) -');

export const sectionNotFound = (ref: string, name: string) =>
  itemError(ItemErrorCode.SectionNotFound, `${ref} has no section ${name}`);
