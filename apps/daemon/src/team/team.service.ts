import { Inject, Injectable } from '@nestjs/common';

import type {
  ActorListResponse,
  ActorWire,
  CreatedTokenResponse,
  MemberListResponse,
  MembershipWire,
  RemoveMemberResponse,
  RevokeTokenResponse,
  TokenListResponse,
  TokenWire,
} from '@app/contracts';

import { AuthenticatedActor } from '../auth/actor';
import { API_TOKEN_PREFIX, generateToken, hashToken, tokenDisplayPrefix } from '../auth/tokens';
import { forbidden, invalidRequest, notFound } from '../common/domain-error';
import { APP_CONFIG, AppConfig } from '../config/config';
import { AddMemberDto, CreateActorDto, CreateTokenDto, ListTokensQueryDto, RemoveMemberDto } from './dto/team.dto';
import { actorExists, cannotDisableSelf, emailTaken, lastAdmin, targetDisabled } from './team.errors';
import { ActorRow, MembershipRow, OrganizationRow, TeamRepository, TokenRow } from './team.repository';

const DEFAULT_ORGANIZATION_SLUG = 'default';

export function toActorWire(row: ActorRow): ActorWire {
  return {
    actor_id: row.id,
    name: row.name,
    email: row.email,
    kind: row.kind,
    status: row.status,
    is_admin: row.is_admin,
    company_sign_in: row.oidc_subject !== null,
    created_at: row.created_at.toISOString(),
    memberships: row.memberships,
  };
}

function toMembershipWire(row: MembershipRow): MembershipWire {
  return { ...row, created_at: row.created_at.toISOString() };
}

function toTokenWire(row: TokenRow): TokenWire {
  return {
    token_id: row.id,
    name: row.name,
    actor: row.actor,
    token_prefix: row.token_prefix,
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at?.toISOString() ?? null,
    expires_at: row.expires_at?.toISOString() ?? null,
    revoked_at: row.revoked_at?.toISOString() ?? null,
  };
}

// People, memberships and API tokens. A server admin (actors.is_admin) manages everyone; an organization's active
// admins manage the actors who belong to their organization (never a server admin); every actor manages their own
// tokens. Anything outside the caller's view answers 404, so names of other organizations' people do not leak.
@Injectable()
export class TeamService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: TeamRepository,
  ) {}

  async listActors(caller: AuthenticatedActor): Promise<ActorListResponse> {
    const scope = await this.adminScope(caller);
    const rows = await this.repository.listActors(scope, caller.id);
    return { actors: rows.map(toActorWire) };
  }

  async showActor(caller: AuthenticatedActor, name: string): Promise<ActorWire> {
    return toActorWire(await this.visibleActor(caller, name));
  }

  async createActor(caller: AuthenticatedActor, dto: CreateActorDto): Promise<ActorWire> {
    const organization = await this.organizationFor(caller, dto.org);
    await this.assertOrganizationAdmin(caller, organization);
    // Only a server admin makes another server admin, and never in hosted mode (there --admin is the org role).
    const isAdmin = Boolean(dto.admin) && caller.isAdmin && this.config.mode !== 'hosted';
    const created = await this.repository.transaction(async (manager) => {
      const id = await this.repository.insertActor(manager, {
        name: dto.name,
        email: dto.email?.toLowerCase() ?? null,
        kind: dto.kind ?? 'person',
        isAdmin,
      });
      if (id === 'name_taken') {
        throw actorExists(dto.name);
      }
      if (id === 'email_taken') throw emailTaken();
      await this.repository.upsertMembership(manager, organization.id, id, dto.admin ? 'admin' : 'member');
      return id;
    });
    return toActorWire((await this.repository.actorById(created))!);
  }

  async setStatus(caller: AuthenticatedActor, name: string, status: 'active' | 'disabled'): Promise<ActorWire> {
    const target = await this.visibleActor(caller, name);
    await this.assertManages(caller, target);
    if (status === 'disabled' && target.id === caller.id) {
      throw cannotDisableSelf();
    }
    if (target.status !== status) await this.repository.setActorStatus(target.id, status);
    return toActorWire((await this.repository.actorById(target.id))!);
  }

  async listMembers(caller: AuthenticatedActor, org: string | undefined): Promise<MemberListResponse> {
    const organization = await this.organizationFor(caller, org, true);
    if (!caller.isAdmin) {
      const mine = await this.repository.membership(organization.id, caller.id);
      if (mine?.status !== 'active') throw notFound(`organization ${organization.slug}`);
    }
    return { members: (await this.repository.listMembers(organization.id)).map(toMembershipWire) };
  }

  async addMember(caller: AuthenticatedActor, dto: AddMemberDto): Promise<MembershipWire> {
    const organization = await this.organizationFor(caller, dto.org);
    await this.assertOrganizationAdmin(caller, organization);
    const target = await this.repository.actorByName(dto.actor);
    if (!target) throw notFound(`actor ${dto.actor}`);
    if (target.is_admin && !caller.isAdmin) throw forbidden('only a server admin changes a server admin');
    await this.repository.transaction((manager) =>
      this.repository.upsertMembership(manager, organization.id, target.id, dto.role ?? 'member'),
    );
    return toMembershipWire((await this.repository.membership(organization.id, target.id))!);
  }

  async removeMember(caller: AuthenticatedActor, dto: RemoveMemberDto): Promise<RemoveMemberResponse> {
    const organization = await this.organizationFor(caller, dto.org);
    await this.assertOrganizationAdmin(caller, organization);
    const target = await this.repository.actorByName(dto.actor);
    if (!target) throw notFound(`actor ${dto.actor}`);
    if (target.is_admin && !caller.isAdmin) throw forbidden('only a server admin changes a server admin');
    const outcome = await this.repository.removeMembership(organization.id, target.id);
    if (outcome === 'absent') throw notFound(`membership of ${dto.actor} in ${organization.slug}`);
    if (outcome === 'last_admin') {
      throw lastAdmin(dto.actor, organization.slug);
    }
    return { org: organization.slug, actor: target.name, removed: true };
  }

  async listTokens(caller: AuthenticatedActor, query: ListTokensQueryDto): Promise<TokenListResponse> {
    let actorIds: number[] | null;
    if (query.actor !== undefined) {
      const target = await this.visibleActor(caller, query.actor);
      if (target.id !== caller.id) await this.assertManages(caller, target);
      actorIds = [target.id];
    } else if (query.all) {
      const scope = await this.adminScope(caller);
      actorIds = scope === null ? null : [...new Set([caller.id, ...(await this.actorIdsIn(scope))])];
    } else {
      actorIds = [caller.id];
    }
    const rows = await this.repository.listTokens(actorIds, query.include_revoked ?? false);
    return { tokens: rows.map(toTokenWire) };
  }

  async createToken(caller: AuthenticatedActor, dto: CreateTokenDto): Promise<CreatedTokenResponse> {
    let target: ActorRow | null = null;
    if (dto.actor !== undefined && dto.actor !== caller.name) {
      target = await this.visibleActor(caller, dto.actor);
      await this.assertManages(caller, target);
      if (target.status !== 'active') {
        throw targetDisabled(target.name);
      }
    }
    const token = generateToken(API_TOKEN_PREFIX);
    const row = await this.repository.insertToken(
      target?.id ?? caller.id,
      dto.name ?? 'cli',
      hashToken(token),
      tokenDisplayPrefix(token),
      dto.expires_in ?? null,
    );
    return { ...toTokenWire(row), token };
  }

  async revokeToken(caller: AuthenticatedActor, id: number): Promise<RevokeTokenResponse> {
    const row = await this.repository.tokenById(id);
    if (!row) throw notFound(`token ${id}`);
    if (row.actor_id !== caller.id) {
      const owner = await this.repository.actorById(row.actor_id);
      if (!owner || !(await this.manages(caller, owner))) throw notFound(`token ${id}`);
    }
    return { token_id: id, revoked: await this.repository.revokeToken(id) };
  }

  // null: every actor (server admin); else the organizations the caller administers (possibly none).
  private async adminScope(caller: AuthenticatedActor): Promise<number[] | null> {
    if (caller.isAdmin) return null;
    return (await this.repository.adminOrganizations(caller.id)).map((o) => o.id);
  }

  private async actorIdsIn(organizationIds: number[]): Promise<number[]> {
    return organizationIds.length === 0 ? [] : this.repository.actorIdsInOrganizations(organizationIds);
  }

  private async visibleActor(caller: AuthenticatedActor, name: string): Promise<ActorRow> {
    const row = await this.repository.actorByName(name);
    if (row && (row.id === caller.id || (await this.manages(caller, row)))) return row;
    throw notFound(`actor ${name}`);
  }

  private async manages(caller: AuthenticatedActor, target: ActorRow): Promise<boolean> {
    if (caller.isAdmin) return true;
    if (target.is_admin) return false;
    const scope = await this.adminScope(caller);
    return scope !== null && scope.length > 0 && this.repository.isMemberOfAny(target.id, scope);
  }

  private async assertManages(caller: AuthenticatedActor, target: ActorRow): Promise<void> {
    if (!(await this.manages(caller, target))) {
      throw forbidden(`only an admin of ${target.name}'s organization can do this`);
    }
  }

  private async assertOrganizationAdmin(caller: AuthenticatedActor, organization: OrganizationRow): Promise<void> {
    if (caller.isAdmin) return;
    const admins = await this.repository.adminOrganizations(caller.id);
    if (!admins.some((o) => o.id === organization.id)) {
      throw forbidden(`only an admin of ${organization.slug} can do this`);
    }
  }

  // The organization a request means: the named one; else the caller's only administered organization; else (a
  // server admin, or any member when reading) the self-host server's organization.
  private async organizationFor(
    caller: AuthenticatedActor,
    slug: string | undefined,
    reading = false,
  ): Promise<OrganizationRow> {
    if (slug !== undefined) {
      const organization = await this.repository.organizationBySlug(slug);
      if (!organization) throw notFound(`organization ${slug}`);
      return organization;
    }
    const administered = await this.repository.adminOrganizations(caller.id);
    if (!reading && !caller.isAdmin && administered.length === 0) {
      throw forbidden('only an admin of an organization can do this');
    }
    if (administered.length === 1 && !caller.isAdmin) return administered[0];
    if (this.config.mode !== 'hosted' && (caller.isAdmin || reading || administered.length > 0)) {
      const all = await this.repository.organizations();
      const chosen = all.length === 1 ? all[0] : all.find((o) => o.slug === DEFAULT_ORGANIZATION_SLUG);
      if (chosen) return chosen;
    }
    throw invalidRequest('name the organization with --org <slug>', { field: 'org' });
  }
}
