import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';

import { EventsRepository, NewEvent } from './events.repository';

@Injectable()
export class EventsService {
  private readonly logger = new Logger(EventsService.name);

  constructor(private readonly repository: EventsRepository) {}

  // For events the decision depends on (e.g. inside the caller's transaction).
  record(event: NewEvent, manager?: EntityManager): Promise<{ id: string; created_at: Date }> {
    return this.repository.insert(event, manager);
  }

  // Telemetry that must never fail its caller (DbClaimAmended): a failure is logged and dropped.
  async recordBestEffort(event: NewEvent): Promise<void> {
    try {
      await this.repository.insert(event);
    } catch (err) {
      this.logger.warn(`event ${event.name} not recorded: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
