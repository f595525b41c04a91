import { Module } from '@nestjs/common';

import { MachineAuthorizationModule } from '../machine-authorization/machine-authorization.module';
import { ApprovalPageController } from './approval-page.controller';
import { ApprovalPageRepository } from './approval-page.repository';
import { ApprovalPageService } from './approval-page.service';
import { OidcRepository } from '../oidc/oidc.repository';
import { OidcService } from '../oidc/oidc.service';

@Module({
  imports: [MachineAuthorizationModule],
  controllers: [ApprovalPageController],
  providers: [ApprovalPageService, ApprovalPageRepository, OidcService, OidcRepository],
})
export class ApprovalPageModule {}
