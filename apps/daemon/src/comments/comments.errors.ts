import { HttpStatus } from '@nestjs/common';

import { errorFactory, ErrorStatusTable } from '../common/domain-error';

export enum CommentErrorCode {
  CommentEmpty = 'comment_empty',
}

export const COMMENT_ERROR_STATUS: ErrorStatusTable<CommentErrorCode> = {
  [CommentErrorCode.CommentEmpty]: HttpStatus.BAD_REQUEST,
};

const commentError = errorFactory(COMMENT_ERROR_STATUS);

export const commentEmpty = () =>
  commentError(CommentErrorCode.CommentEmpty, 'a comment needs a body with something other than white space');
