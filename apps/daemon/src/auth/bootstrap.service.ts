import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';

import { credentialsPath, writeCredentials } from '@app/credentials';

import { APP_CONFIG, AppConfig } from '../config/app-config';
import { AuthRepository } from './auth.repository';
import { API_TOKEN_PREFIX, generateToken, hashToken, tokenDisplayPrefix } from './tokens';

export const DEFAULT_ORGANIZATION_SLUG = 'default';

export interface BootstrapResult {
  token: string;
  credentialsFile: string | null;
}

@Injectable()
export class BootstrapService implements OnApplicationBootstrap {
  private readonly logger = new Logger(BootstrapService.name);
  result: BootstrapResult | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: AuthRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.bootstrapAdmin) return;
    this.result = await this.bootstrap();
  }

  async bootstrap(): Promise<BootstrapResult | null> {
    const token = this.config.bootstrapToken ?? generateToken(API_TOKEN_PREFIX);
    const created = await this.repository.createFirstAdmin(
      hashToken(token),
      tokenDisplayPrefix(token),
      DEFAULT_ORGANIZATION_SLUG,
    );
    if (!created) return null;
    this.logger.log('first boot: created the admin actor and its API token');
    return { token, credentialsFile: null };
  }

  // Once listening, so the stored address is the real one (port 0). The token is shown only on a terminal.
  announce(listeningUrl: string, onTerminal = false): string[] | null {
    if (!this.result) return null;
    const url = this.config.publicUrl ?? listeningUrl;
    try {
      this.result.credentialsFile = writeCredentials(this.config.configDir, {
        url,
        token: this.result.token,
        kind: 'api_token',
        actor: 'admin',
      });
    } catch (err) {
      this.logger.warn(
        `could not write the CLI credential file in ${this.config.configDir}: ${(err as Error).message}`,
      );
    }
    const written = this.result.credentialsFile !== null;
    const file = credentialsPath(this.config.configDir);
    const stored = written
      ? `stored for the svc command line in ${file} (mode 0600)`
      : 'the svc command line credential file could not be written: keep this token';
    const token = this.result.token;
    this.result = null;
    // A token the environment supplied (SVC_BOOTSTRAP_TOKEN) is known to whoever set it: never echoed.
    if (this.config.bootstrapToken) {
      return ['svc: first boot — created the admin actor; its API token is SVC_BOOTSTRAP_TOKEN', '', stored];
    }
    // On a terminal the token is shown unless SVC_PRINT_BOOTSTRAP_TOKEN=false and the file holds it.
    if (onTerminal && (this.config.printBootstrapToken || !written)) {
      return ['svc: first boot — the admin API token (shown once, keep it safe):', '', `    ${token}`, '', stored];
    }
    if (written) {
      return [
        'svc: first boot — created the admin actor and its API token',
        '',
        `stored for the svc command line in ${file} (mode 0600); it is shown only on a terminal`,
      ];
    }
    return [
      'svc: first boot — created the admin actor, but its API token could not be stored and is never written where the output is not a terminal',
      '',
      `make ${file} writable (SVC_CONFIG_DIR), then start again on an empty data folder on a terminal, or with SVC_BOOTSTRAP_TOKEN set`,
    ];
  }
}
