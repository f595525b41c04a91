import { Global, Module } from '@nestjs/common';

import { ServerSecretService } from './server-secret.service';

@Global()
@Module({ providers: [ServerSecretService], exports: [ServerSecretService] })
export class ServerSecretModule {}
