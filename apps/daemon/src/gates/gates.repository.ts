import { Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';

import { InjectDataSource } from '../common/inject-data-source';

@Injectable()
export class GatesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  openItemsOf(project: string): Promise<{ id: number; ref: string }[]> {
    return this.dataSource.query(
      `SELECT i.id, p.public_item_prefix || '-' || i.project_sequence AS ref
         FROM items i JOIN projects p ON p.id = i.project
        WHERE i.project = $1 AND i.status NOT IN ('done', 'cancelled', 'stopped', 'failed')
        ORDER BY i.project_sequence`,
      [project],
    );
  }
}
