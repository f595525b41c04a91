import { Inject, Injectable } from '@nestjs/common';

import type {
  ActorListResponse,
  ActorWire,
  CreatedTokenResponse,
  MemberListResponse,
  MembershipWire,
  OrganizationDetailWire,
  OrganizationListResponse,
  OrganizationWire,
  RemoveMemberResponse,
  RevokeTokenResponse,
  TokenListResponse,
  TokenWire,
} from '@app/contracts';

import { AuthenticatedActor, isServerAdmin, organizationScope } from '../auth/actor';
import { API_TOKEN_PREFIX, generateToken, hashToken, tokenDisplayPrefix } from '../auth/tokens';
import { forbidden, invalidRequest, notFound, unauthorized } from '../common/domain-error';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import {
  AddMemberDto,
  CreateActorDto,
  CreateOrganizationDto,
  CreateTokenDto,
  ListTokensQueryDto,
  RemoveMemberDto,
} from './dto/team.dto';
import {
  actorExists,
  cannotDisableSelf,
  emailTaken,
  lastAdmin,
  nameUnavailable,
  organizationExists,
  targetDisabled,
} from './team.errors';
import {
  ActorRow,
  MembershipRow,
  OrganizationRow,
  OrganizationSummaryRow,
  TeamRepository,
  TeamViewer,
  TokenRow,
} from './team.repository';

const DEFAULT_ORGANIZATION_SLUG = 'default';

const viewerOf = (caller: AuthenticatedActor): TeamViewer => ({
  id: caller.id,
  isAdmin: caller.isAdmin,
  scope: organizationScope(caller),
});

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
    parent_token_id: row.parent_token_id,
    parent_machine_id: row.parent_machine_id,
    scope: row.scope === 'metrics' ? 'metrics' : 'full',
  };
}

function toOrganizationWire(row: OrganizationSummaryRow): OrganizationWire {
  return {
    slug: row.slug,
    name: row.name,
    created_at: row.created_at.toISOString(),
    member_count: row.member_count,
    admin_count: row.admin_count,
    role: row.role,
  };
}

// Anything outside the caller's view (IN_VIEW in the repository) answers the same 404 as a name that does not
// exist, so other organizations' people do not leak. A confined request acts in its organization only.
@Injectable()
export class TeamService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: TeamRepository,
  ) {}

  async createOrganization(caller: AuthenticatedActor, dto: CreateOrganizationDto): Promise<OrganizationWire> {
    if (!isServerAdmin(caller)) {
      throw forbidden(
        caller.isAdmin
          ? 'only a server admin whose credential is not confined to one organization creates organizations'
          : 'only a server admin creates organizations',
      );
    }
    if ((await this.repository.insertOrganization(dto.slug, dto.name ?? dto.slug)) === null) {
      throw organizationExists(dto.slug);
    }
    return toOrganizationWire((await this.repository.organizationSummaries(caller.id, true, dto.slug, null))[0]);
  }

  async listOrganizations(caller: AuthenticatedActor): Promise<OrganizationListResponse> {
    const rows = await this.repository.organizationSummaries(
      caller.id,
      caller.isAdmin,
      null,
      organizationScope(caller),
    );
    return { organizations: rows.map(toOrganizationWire) };
  }

  async showOrganization(caller: AuthenticatedActor, slug: string): Promise<OrganizationDetailWire> {
    const [row] = await this.repository.organizationSummaries(
      caller.id,
      caller.isAdmin,
      slug,
      organizationScope(caller),
    );
    if (!row) throw notFound(`organization ${slug}`);
    const members = await this.repository.listMembers(row.id);
    return { ...toOrganizationWire(row), members: members.map(toMembershipWire) };
  }

  async listActors(caller: AuthenticatedActor): Promise<ActorListResponse> {
    const rows = await this.repository.listActors(viewerOf(caller));
    return { actors: rows.map(toActorWire) };
  }

  async showActor(caller: AuthenticatedActor, name: string): Promise<ActorWire> {
    return toActorWire(await this.visibleActor(caller, name));
  }

  async createActor(caller: AuthenticatedActor, dto: CreateActorDto): Promise<ActorWire> {
    const organization = await this.organizationFor(caller, dto.org);
    await this.assertOrganizationAdmin(caller, organization);
    // Only an unconfined server admin makes a server admin, never in hosted mode (--admin is the org role there).
    const isAdmin = Boolean(dto.admin) && isServerAdmin(caller) && this.config.mode !== 'hosted';
    const created = await this.repository.transaction(async (manager) => {
      const id = await this.repository.insertActor(manager, {
        name: dto.name,
        email: dto.email?.toLowerCase() ?? null,
        kind: dto.kind ?? 'person',
        isAdmin,
      });
      // An organization admin is not told whether the name is someone in their view or in another organization.
      if (id === 'name_taken') throw isServerAdmin(caller) ? actorExists(dto.name) : nameUnavailable(dto.name);
      if (id === 'email_taken') throw emailTaken();
      await this.repository.upsertMembership(manager, organization.id, id, dto.admin ? 'admin' : 'member');
      return id;
    });
    return toActorWire((await this.repository.actorById(created))!);
  }

  async setStatus(caller: AuthenticatedActor, name: string, status: 'active' | 'disabled'): Promise<ActorWire> {
    const target = await this.visibleActor(caller, name);
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
    // Someone outside an organization admin's view takes a server admin to add.
    const target = await this.visibleActor(caller, dto.actor);
    await this.repository.transaction((manager) =>
      this.repository.upsertMembership(manager, organization.id, target.id, dto.role ?? 'member'),
    );
    return toMembershipWire((await this.repository.membership(organization.id, target.id))!);
  }

  async removeMember(caller: AuthenticatedActor, dto: RemoveMemberDto): Promise<RemoveMemberResponse> {
    const organization = await this.organizationFor(caller, dto.org);
    await this.assertOrganizationAdmin(caller, organization);
    // An org admin may take anyone but a server admin out of their own organization; others answer as unknown.
    const member = await this.repository.memberByName(organization.id, dto.actor);
    const target =
      member && (isServerAdmin(caller) || !member.is_admin) ? member : await this.visibleActor(caller, dto.actor);
    const outcome = await this.repository.removeMembership(organization.id, target.id);
    if (outcome === 'absent') throw notFound(`membership of ${dto.actor} in ${organization.slug}`);
    if (outcome === 'last_admin') {
      throw lastAdmin(dto.actor, organization.slug);
    }
    return { org: organization.slug, actor: target.name, removed: true };
  }

  async listTokens(caller: AuthenticatedActor, query: ListTokensQueryDto): Promise<TokenListResponse> {
    let actorId: number | null = caller.id;
    if (query.actor !== undefined) actorId = (await this.visibleActor(caller, query.actor)).id;
    else if (query.all) actorId = null;
    const rows = await this.repository.listTokens(viewerOf(caller), actorId, query.include_revoked ?? false);
    return { tokens: rows.map(toTokenWire) };
  }

  // A requested lifetime beyond the parent credential's expiry is capped, visibly in expires_at.
  async createToken(caller: AuthenticatedActor, dto: CreateTokenDto): Promise<CreatedTokenResponse> {
    // the metrics are server-wide: only a server admin hands out a credential that reads them
    if (dto.scope === 'metrics' && !isServerAdmin(caller)) {
      throw forbidden('only a server admin (not confined to one organization) mints a metrics token');
    }
    let target: ActorRow | null = null;
    if (dto.actor !== undefined && dto.actor !== caller.name) {
      target = await this.visibleActor(caller, dto.actor);
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
      { via: caller.via, id: caller.credentialId },
      organizationScope(caller),
      dto.scope ?? 'full',
    );
    if (!row) throw unauthorized('this credential was revoked or has expired');
    return { ...toTokenWire(row), token };
  }

  async revokeToken(caller: AuthenticatedActor, id: number): Promise<RevokeTokenResponse> {
    const row = await this.repository.tokenById(id);
    if (!row) throw notFound(`token ${id}`);
    if (row.actor_id !== caller.id && !(await this.repository.isInView(viewerOf(caller), row.actor_id))) {
      throw notFound(`token ${id}`);
    }
    return { token_id: id, revoked: await this.repository.revokeToken(id) };
  }

  private async visibleActor(caller: AuthenticatedActor, name: string): Promise<ActorRow> {
    const row = await this.repository.visibleActorByName(viewerOf(caller), name);
    if (!row) throw notFound(`actor ${name}`);
    return row;
  }

  private async assertOrganizationAdmin(caller: AuthenticatedActor, organization: OrganizationRow): Promise<void> {
    const confined = organizationScope(caller);
    if (confined !== null && confined !== organization.id) throw notFound(`organization ${organization.slug}`);
    if (caller.isAdmin) return;
    const admins = await this.repository.adminOrganizations(caller.id);
    if (admins.some((o) => o.id === organization.id)) return;
    if ((await this.repository.membership(organization.id, caller.id))?.status !== 'active') {
      throw notFound(`organization ${organization.slug}`);
    }
    throw forbidden(`only an admin of ${organization.slug} can do this`);
  }

  // The named organization; else the request's confinement; else the caller's only administered one; else the
  // self-host server's. A confined request naming another gets the 404 of one that does not exist.
  private async organizationFor(
    caller: AuthenticatedActor,
    slug: string | undefined,
    reading = false,
  ): Promise<OrganizationRow> {
    const confined = organizationScope(caller);
    if (slug !== undefined) {
      const organization = await this.repository.organizationBySlug(slug);
      if (!organization || (confined !== null && organization.id !== confined)) throw notFound(`organization ${slug}`);
      return organization;
    }
    if (confined !== null) {
      const organization = await this.repository.organizationById(confined);
      if (!organization) throw notFound('organization');
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
