import { Module } from '@nestjs/common';

import { FrontierModule } from '../frontier/frontier.module';
import { SessionsModule } from '../sessions/sessions.module';
import { ChargeController } from './charge.controller';
import { ChargeRepository } from './charge.repository';
import { ChargeService } from './charge.service';

@Module({
  imports: [FrontierModule, SessionsModule],
  controllers: [ChargeController],
  providers: [ChargeRepository, ChargeService],
})
export class ChargeModule {}
