import { Module } from '@nestjs/common';

import { OidcRepository } from './oidc.repository';
import { OidcService } from './oidc.service';

@Module({ providers: [OidcService, OidcRepository], exports: [OidcService] })
export class OidcModule {}
