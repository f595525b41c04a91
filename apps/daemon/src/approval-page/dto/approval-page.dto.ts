import { IsIn, IsOptional, IsString, Length } from 'class-validator';

export class SignInFormDto {
  @IsString() @Length(1, 512) token!: string;
  @IsOptional() @IsString() @Length(0, 32) code?: string;
}

export class DecisionFormDto {
  @IsIn(['approve', 'deny']) action!: 'approve' | 'deny';
  @IsString() @Length(1, 128) csrf!: string;
}

export class SignOutFormDto {
  @IsString() @Length(1, 128) csrf!: string;
}

export class CodeQueryDto {
  @IsOptional() @IsString() @Length(0, 32) code?: string;
  // verification links of other device-code servers carry ?user_code=; it pre-fills the form
  @IsOptional() @IsString() @Length(0, 32) user_code?: string;
}

export class CompanySignInFormDto {
  @IsOptional() @IsString() @Length(0, 32) code?: string;
}
