import { Global, Module } from '@nestjs/common';

import { ServerSecretService } from './server-secret.service';

// The daemon's shared pieces that are no feature's own: the server secret (keyed digests for machine
// authorization, the approval page, company sign-in and the replicas' checks).
@Global()
@Module({ providers: [ServerSecretService], exports: [ServerSecretService] })
export class CommonModule {}
