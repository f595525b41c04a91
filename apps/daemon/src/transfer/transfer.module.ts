import { Module } from '@nestjs/common';

import { DependenciesModule } from '../dependencies/dependencies.module';
import { DeploymentsModule } from '../deployments/deployments.module';
import { ItemsModule } from '../items/items.module';
import { TransferController } from './transfer.controller';
import { TransferRepository } from './transfer.repository';
import { TransferService } from './transfer.service';

@Module({
  imports: [ItemsModule, DependenciesModule, DeploymentsModule],
  controllers: [TransferController],
  providers: [TransferRepository, TransferService],
})
export class TransferModule {}
