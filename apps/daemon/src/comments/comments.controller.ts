import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';

import { ItemCommentListWire, ItemCommentWire } from '@app/contracts';

import { AuthenticatedActor, CurrentActor } from '../auth/actor';
import { Writes } from '../rulebook/writes.decorator';
import { CommentsService } from './comments.service';
import { AddCommentDto, CommentsQueryDto } from './dto/comments.dto';

@Controller('v1/items')
export class CommentsController {
  constructor(private readonly service: CommentsService) {}

  // Not the claim rule: a comment is a note about the item, not a change of it (docs/adr/0073).
  @Writes('scope')
  @Post(':ref/comments')
  add(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('ref') ref: string,
    @Body() dto: AddCommentDto,
  ): Promise<ItemCommentWire> {
    return this.service.add(actor, ref, dto);
  }

  @Get(':ref/comments')
  list(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('ref') ref: string,
    @Query() query: CommentsQueryDto,
  ): Promise<ItemCommentListWire> {
    return this.service.list(actor, ref, query);
  }
}
