import { Global, Module } from '@nestjs/common';

import { ServerSecretService } from './server-secret.service';

// The server secret, read once from the configuration (keyed digests for machine
// authorization, the approval page, company sign-in and the replicas' checks).
@Global()
@Module({ providers: [ServerSecretService], exports: [ServerSecretService] })
export class ServerSecretModule {}
