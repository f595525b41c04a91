import { Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';

import { InjectDataSource } from '../common/inject-data-source';

export interface SignInActorRow {
  id: number;
  name: string;
  status: 'active' | 'disabled';
  kind: string;
  oidc_subject: string | null;
}

export interface NewSignInState {
  stateDigest: Buffer;
  bindingDigest: Buffer;
  pkceVerifier: string;
  nonce: string;
  returnCode: string | null;
  lifetimeSeconds: number;
}

export interface SignInStateRow {
  pkce_verifier: string;
  nonce: string;
  return_code: string | null;
}

const DEFAULT_ORGANIZATION_SLUG = 'default';

@Injectable()
export class OidcRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async saveSignInState(state: NewSignInState): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO oidc_sign_in_states (state_digest, binding_digest, pkce_verifier, nonce, return_code, expires_at)
       VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))`,
      [
        state.stateDigest,
        state.bindingDigest,
        state.pkceVerifier,
        state.nonce,
        state.returnCode,
        state.lifetimeSeconds,
      ],
    );
  }

  // Single use: the one callback that flips consumed_at gets the state; a replay, another browser's cookie or an
  // expired sign-in gets nothing. Concurrent callbacks serialize on the row: the second matches no row.
  async consumeSignInState(stateDigest: Buffer, bindingDigest: Buffer): Promise<SignInStateRow | null> {
    // TypeORM answers an UPDATE … RETURNING with [rows, affected].
    const [rows]: [SignInStateRow[], number] = await this.dataSource.query(
      `UPDATE oidc_sign_in_states SET consumed_at = now()
        WHERE state_digest = $1 AND binding_digest = $2 AND consumed_at IS NULL AND expires_at > now()
        RETURNING pkce_verifier, nonce, return_code`,
      [stateDigest, bindingDigest],
    );
    return rows[0] ?? null;
  }

  async actorBySubject(issuer: string, subject: string): Promise<SignInActorRow | null> {
    const rows: SignInActorRow[] = await this.dataSource.query(
      'SELECT id, name, status, kind, oidc_subject FROM actors WHERE oidc_issuer = $1 AND oidc_subject = $2',
      [issuer, subject],
    );
    return rows[0] ?? null;
  }

  async linkInvited(email: string, issuer: string, subject: string): Promise<SignInActorRow | null> {
    const [rows]: [SignInActorRow[], number] = await this.dataSource.query(
      `UPDATE actors SET oidc_issuer = $2, oidc_subject = $3
        WHERE lower(email) = lower($1) AND oidc_subject IS NULL AND kind = 'person'
        RETURNING id, name, status, kind, oidc_subject`,
      [email, issuer, subject],
    );
    return rows[0] ?? null;
  }

  // First sign-in: a member of the server's organization; the name is the email's local part, numbered if taken.
  async provision(email: string, issuer: string, subject: string, baseName: string): Promise<SignInActorRow | null> {
    return this.dataSource.transaction(async (manager) => {
      const orgs: { id: number }[] = await manager.query(
        `SELECT id FROM organizations ORDER BY (slug = $1) DESC, id LIMIT 1`,
        [DEFAULT_ORGANIZATION_SLUG],
      );
      if (!orgs[0]) return null;
      for (let n = 1; n < 100; n += 1) {
        const name = n === 1 ? baseName : `${baseName}-${n}`;
        const rows: SignInActorRow[] = await manager.query(
          `INSERT INTO actors (name, email, kind, status, is_admin, oidc_issuer, oidc_subject)
           VALUES ($1, lower($2), 'person', 'active', false, $3, $4)
           ON CONFLICT DO NOTHING RETURNING id, name, status, kind, oidc_subject`,
          [name, email, issuer, subject],
        );
        if (rows[0]) {
          await manager.query(
            `INSERT INTO memberships (organization_id, actor_id, role, status) VALUES ($1, $2, 'member', 'active')`,
            [orgs[0].id, rows[0].id],
          );
          return rows[0];
        }
        const emailTaken: unknown[] = await manager.query('SELECT 1 FROM actors WHERE lower(email) = lower($1)', [
          email,
        ]);
        if (emailTaken.length > 0) return null;
      }
      return null;
    });
  }
}
