import { Module } from '@nestjs/common';

import { OidcRepository } from './oidc.repository';
import { OidcService } from './oidc.service';

// Company sign-in (OpenID Connect) for the approval page: the service is the feature's face, its repository private.
@Module({ providers: [OidcService, OidcRepository], exports: [OidcService] })
export class OidcModule {}
