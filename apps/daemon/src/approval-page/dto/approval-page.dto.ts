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

// The provider's redirect: code and state on success, error (and a description) on refusal; iss when it says so.
export class CompanySignInCallbackQueryDto {
  @IsOptional() @IsString() @Length(1, 4096) code?: string;
  @IsOptional() @IsString() @Length(1, 512) state?: string;
  @IsOptional() @IsString() @Length(1, 2048) iss?: string;
  @IsOptional() @IsString() @Length(1, 256) error?: string;
  @IsOptional() @IsString() @Length(0, 2048) error_description?: string;
  @IsOptional() @IsString() @Length(0, 2048) error_uri?: string;
  @IsOptional() @IsString() @Length(0, 2048) session_state?: string;
}
