import { Transform } from 'class-transformer';
import { IsBoolean, IsEmail, IsIn, IsInt, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';

import { toBool, toUnsignedInt } from '../../common/transforms';

export const ACTOR_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
// The organizations table's CHECK (ck_organizations_slug) spells the same pattern.
export const ORG_SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;
const TEN_YEARS_SECONDS = 10 * 366 * 24 * 3600;

export class CreateActorDto {
  @IsString() @Matches(ACTOR_NAME_PATTERN, { message: 'name: letters, digits, . _ - (at most 64)' }) name!: string;
  @IsOptional() @IsEmail() @Length(3, 254) email?: string;
  @IsOptional() @IsIn(['person', 'agent']) kind?: 'person' | 'agent';
  @IsOptional() @IsBoolean() admin?: boolean;
  @IsOptional() @IsString() @Matches(ORG_SLUG) org?: string;
}

export class OrgQueryDto {
  @IsOptional() @IsString() @Matches(ORG_SLUG) org?: string;
}

export class AddMemberDto {
  @IsString() @Matches(ACTOR_NAME_PATTERN) actor!: string;
  @IsOptional() @IsIn(['admin', 'member']) role?: 'admin' | 'member';
  @IsOptional() @IsString() @Matches(ORG_SLUG) org?: string;
}

export class RemoveMemberDto {
  @IsString() @Matches(ACTOR_NAME_PATTERN) actor!: string;
  @IsOptional() @IsString() @Matches(ORG_SLUG) org?: string;
}

export class CreateTokenDto {
  @IsOptional() @IsString() @Matches(ACTOR_NAME_PATTERN) actor?: string;
  @IsOptional() @IsString() @Length(1, 100) name?: string;
  @IsOptional() @IsInt() @Min(60) @Max(TEN_YEARS_SECONDS) expires_in?: number;
  @IsOptional() @IsIn(['full', 'metrics']) scope?: 'full' | 'metrics';
}

export class ListTokensQueryDto {
  @IsOptional() @IsString() @Matches(ACTOR_NAME_PATTERN) actor?: string;
  @IsOptional() @Transform(toBool) @IsBoolean() all?: boolean;
  @IsOptional() @Transform(toBool) @IsBoolean() include_revoked?: boolean;
}

export class TokenIdParamDto {
  @Transform(toUnsignedInt) @IsInt() @Min(1) @Max(2147483647) id!: number;
}

export class CreateOrganizationDto {
  @IsString()
  @Matches(ORG_SLUG, {
    message: 'slug: lower-case letters, digits and -, starting with a letter or digit (at most 63)',
  })
  slug!: string;
  @IsOptional() @IsString() @Length(1, 100) name?: string;
}
