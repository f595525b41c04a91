import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

export type EventKind = 'workflow' | 'lifecycle' | 'telemetry';

export interface NewEvent {
  name: string;
  kind: EventKind;
  project?: string | null;
  itemRef?: string | null;
  actorId?: number | null;
  sessionId?: number | null;
  payload: Record<string, unknown>;
}

export const EVENTS_CHANNEL = 'svc_events';

@Injectable()
export class EventsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  // Insert and announce in one statement: NOTIFY is delivered at commit, to every replica's listener.
  async insert(
    event: NewEvent,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<{ id: string; created_at: Date }> {
    const rows: { id: string; created_at: Date }[] = await manager.query(
      `WITH e AS (
         INSERT INTO events (name, kind, project, item_ref, actor_id, session_id, payload)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb)
         RETURNING id, name, project, item_ref, created_at
       )
       SELECT e.id, e.created_at,
              pg_notify($8, json_build_object('type', 'event', 'id', e.id, 'name', e.name,
                                              'project', e.project, 'item_ref', e.item_ref)::text)
         FROM e`,
      [
        event.name,
        event.kind,
        event.project ?? null,
        event.itemRef ?? null,
        event.actorId ?? null,
        event.sessionId ?? null,
        JSON.stringify(event.payload),
        EVENTS_CHANNEL,
      ],
    );
    return rows[0];
  }
}
