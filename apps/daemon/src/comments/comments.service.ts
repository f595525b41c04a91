import { Injectable } from '@nestjs/common';

import { DEFAULT_COMMENT_LIMIT, ItemCommentListWire, ItemCommentWire } from '@app/contracts';

import { AuthenticatedActor } from '../auth/actor';
import { lastStatement } from '../database/pipelined-transactions';
import { actorWriter, currentWrite } from '../database/write-context';
import { EventsService } from '../events/events.service';
import { ProjectAccessService } from '../projects/project-access.service';
import {
  AddCommentDto,
  CommentsQueryDto,
  RecentCommentJson,
  recentCommentRows,
  toCommentResponse,
} from './dto/comments.dto';
import { commentEmpty } from './comments.errors';
import { CommentsRepository } from './comments.repository';

// Not the claim rule: a comment is a note about the item, not a change of it (docs/adr/0073). The table's trigger
// records it on the item's history; the ItemCommented event lets an open detail pane follow it.
@Injectable()
export class CommentsService {
  constructor(
    private readonly repository: CommentsRepository,
    private readonly access: ProjectAccessService,
    private readonly events: EventsService,
  ) {}

  async add(actor: AuthenticatedActor, ref: string, dto: AddCommentDto): Promise<ItemCommentWire> {
    if (!/\S/.test(dto.body)) throw commentEmpty();
    const item = await this.access.resolveItem(actor, ref);
    // every request runs in a write context (rulebook/write-context.guard.ts); should one not, the caller writes
    const writer = currentWrite()?.writer ?? actorWriter(actor, 'http');
    const row = await this.repository.transaction(async (manager) => {
      const inserted = await this.repository.insert(manager, item.id, writer, dto.body);
      // the comment's event is its transaction's last statement: the COMMIT goes with it (ADR 0101)
      await lastStatement(manager, () =>
        this.events.record(
          {
            name: 'ItemCommented',
            kind: 'workflow',
            project: item.project,
            itemRef: item.ref,
            actorId: actor.id,
            sessionId: writer.session_id,
            payload: { comment_id: inserted.id, author: inserted.actor_name, path: inserted.path },
          },
          manager,
        ),
      );
      return inserted;
    });
    return toCommentResponse(item.ref, row);
  }

  async list(actor: AuthenticatedActor, ref: string, query: CommentsQueryDto): Promise<ItemCommentListWire> {
    const item = await this.access.resolveItem(actor, ref);
    const limit = query.limit ?? DEFAULT_COMMENT_LIMIT;
    const rows = await this.repository.page(item.id, query.cursor ?? null, limit);
    const more = rows.length > limit;
    const shown = more ? rows.slice(0, limit) : rows;
    return {
      item_id: item.ref,
      comments: shown.map((row) => toCommentResponse(item.ref, row)),
      next_cursor: more ? shown[shown.length - 1].id : null,
    };
  }

  // What an item's detail shows of its comments, from the columns its read took (recentCommentsColumns).
  recentOf(
    ref: string,
    recent: readonly RecentCommentJson[],
    count: number,
  ): { comments: ItemCommentWire[]; comment_count: number } {
    return { comments: recentCommentRows(recent).map((row) => toCommentResponse(ref, row)), comment_count: count };
  }
}
