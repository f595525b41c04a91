import { createHmac } from 'node:crypto';

import { Inject, Injectable } from '@nestjs/common';

import { APP_CONFIG, AppConfig } from './app-config';
import { loadServerSecret } from './server-secret';

@Injectable()
export class ServerSecretService {
  readonly value: Buffer;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.value = loadServerSecret(config.serverSecret, config.home);
  }

  // Purpose-separated keyed digests: one secret, never the same MAC for two uses.
  mac(purpose: string, data: string): Buffer {
    return createHmac('sha256', this.value).update(`${purpose}:${data}`, 'utf8').digest();
  }
}
