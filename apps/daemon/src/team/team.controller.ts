import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';

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
} from '@app/contracts';

import { AuthenticatedActor, CurrentActor } from '../auth/actor';
import { invalidRequest } from '../common/domain-error';
import {
  ACTOR_NAME_PATTERN,
  AddMemberDto,
  CreateActorDto,
  CreateOrganizationDto,
  CreateTokenDto,
  ListTokensQueryDto,
  ORG_SLUG,
  OrgQueryDto,
  RemoveMemberDto,
  TokenIdParamDto,
} from './dto/team.dto';
import { TeamService } from './team.service';
import { Writes } from '../rulebook/writes.decorator';

function actorName(name: string): string {
  if (!ACTOR_NAME_PATTERN.test(name)) throw invalidRequest('an actor name has letters, digits, . _ - (at most 64)');
  return name;
}

function organizationSlug(slug: string): string {
  if (!ORG_SLUG.test(slug))
    throw invalidRequest('an organization slug has lower-case letters, digits and - (at most 63)');
  return slug;
}

@Controller('v1/orgs')
export class OrganizationsController {
  constructor(private readonly service: TeamService) {}

  @Get()
  list(@CurrentActor() actor: AuthenticatedActor): Promise<OrganizationListResponse> {
    return this.service.listOrganizations(actor);
  }

  @Writes('role')
  @Post()
  create(@CurrentActor() actor: AuthenticatedActor, @Body() dto: CreateOrganizationDto): Promise<OrganizationWire> {
    return this.service.createOrganization(actor, dto);
  }

  @Get(':slug')
  show(@CurrentActor() actor: AuthenticatedActor, @Param('slug') slug: string): Promise<OrganizationDetailWire> {
    return this.service.showOrganization(actor, organizationSlug(slug));
  }
}

@Controller('v1/actors')
export class ActorsController {
  constructor(private readonly service: TeamService) {}

  @Get()
  list(@CurrentActor() actor: AuthenticatedActor): Promise<ActorListResponse> {
    return this.service.listActors(actor);
  }

  @Writes('scope', 'role')
  @Post()
  create(@CurrentActor() actor: AuthenticatedActor, @Body() dto: CreateActorDto): Promise<ActorWire> {
    return this.service.createActor(actor, dto);
  }

  @Get(':name')
  show(@CurrentActor() actor: AuthenticatedActor, @Param('name') name: string): Promise<ActorWire> {
    return this.service.showActor(actor, actorName(name));
  }

  @Writes('scope', 'role')
  @Post(':name/disable')
  @HttpCode(200)
  disable(@CurrentActor() actor: AuthenticatedActor, @Param('name') name: string): Promise<ActorWire> {
    return this.service.setStatus(actor, actorName(name), 'disabled');
  }

  @Writes('scope', 'role')
  @Post(':name/enable')
  @HttpCode(200)
  enable(@CurrentActor() actor: AuthenticatedActor, @Param('name') name: string): Promise<ActorWire> {
    return this.service.setStatus(actor, actorName(name), 'active');
  }
}

@Controller('v1/members')
export class MembersController {
  constructor(private readonly service: TeamService) {}

  @Get()
  list(@CurrentActor() actor: AuthenticatedActor, @Query() query: OrgQueryDto): Promise<MemberListResponse> {
    return this.service.listMembers(actor, query.org);
  }

  @Writes('scope', 'role')
  @Post()
  add(@CurrentActor() actor: AuthenticatedActor, @Body() dto: AddMemberDto): Promise<MembershipWire> {
    return this.service.addMember(actor, dto);
  }

  @Writes('scope', 'role')
  @Post('remove')
  @HttpCode(200)
  remove(@CurrentActor() actor: AuthenticatedActor, @Body() dto: RemoveMemberDto): Promise<RemoveMemberResponse> {
    return this.service.removeMember(actor, dto);
  }
}

@Controller('v1/tokens')
export class TokensController {
  constructor(private readonly service: TeamService) {}

  @Get()
  list(@CurrentActor() actor: AuthenticatedActor, @Query() query: ListTokensQueryDto): Promise<TokenListResponse> {
    return this.service.listTokens(actor, query);
  }

  @Writes('scope', 'role')
  @Post()
  create(@CurrentActor() actor: AuthenticatedActor, @Body() dto: CreateTokenDto): Promise<CreatedTokenResponse> {
    return this.service.createToken(actor, dto);
  }

  @Writes('scope', 'role')
  @Post(':id/revoke')
  @HttpCode(200)
  revoke(@CurrentActor() actor: AuthenticatedActor, @Param() params: TokenIdParamDto): Promise<RevokeTokenResponse> {
    return this.service.revokeToken(actor, params.id);
  }
}
