import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';

import { AuthenticatedActor, CurrentActor } from '../auth/actor';
import { Writes } from '../rulebook/writes.decorator';
import {
  BacklogDocument,
  ExportQueryDto,
  ImportQueryDto,
  ImportSummary,
  Snapshot,
  SnapshotList,
} from './dto/transfer.dto';
import { TransferService } from './transfer.service';

@Controller('v1')
export class TransferController {
  constructor(private readonly service: TransferService) {}

  @Post('import')
  @Writes('scope', 'role', 'stage_gates', 'approval_stages')
  import(
    @CurrentActor() actor: AuthenticatedActor,
    @Body() body: unknown,
    @Query() query: ImportQueryDto,
  ): Promise<ImportSummary> {
    return this.service.import(actor, body, query.replace === '1' || query.replace === 'true');
  }

  @Get('export')
  export(@CurrentActor() actor: AuthenticatedActor, @Query() query: ExportQueryDto): Promise<BacklogDocument> {
    return this.service.export(actor, query.project);
  }

  @Get('projects/:id/snapshots')
  snapshots(@CurrentActor() actor: AuthenticatedActor, @Param('id') id: string): Promise<SnapshotList> {
    return this.service.snapshots(actor, id);
  }

  @Get('projects/:id/snapshots/:snapshot')
  snapshot(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('id') id: string,
    @Param('snapshot') snapshot: string,
  ): Promise<Snapshot> {
    return this.service.snapshot(actor, id, snapshot);
  }
}
