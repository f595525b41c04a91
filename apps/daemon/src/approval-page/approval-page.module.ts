import { Module } from '@nestjs/common';

import { MachineAuthorizationModule } from '../machine-authorization/machine-authorization.module';
import { OidcModule } from '../oidc/oidc.module';
import { ApprovalPageController } from './approval-page.controller';
import { ApprovalPageRepository } from './approval-page.repository';
import { ApprovalPageService } from './approval-page.service';

@Module({
  imports: [MachineAuthorizationModule, OidcModule],
  controllers: [ApprovalPageController],
  providers: [ApprovalPageService, ApprovalPageRepository],
})
export class ApprovalPageModule {}
