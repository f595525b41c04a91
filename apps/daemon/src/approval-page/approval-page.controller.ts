import { Body, Controller, Get, Param, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';

import { Public } from '../auth/public.decorator';
import { APPROVAL_BASE } from './approval-page.html';
import { ApprovalPageExceptionFilter } from './approval-page.filter';
import { render } from './approval-page.render';
import { ApprovalPageService } from './approval-page.service';
import {
  CodeQueryDto,
  CompanySignInFormDto,
  DecisionFormDto,
  SignInFormDto,
  SignOutFormDto,
} from './dto/approval-page.dto';
import { Writes } from '../rulebook/writes.decorator';

@Public()
@UseFilters(ApprovalPageExceptionFilter)
@Controller(APPROVAL_BASE.slice(1))
export class ApprovalPageController {
  constructor(private readonly service: ApprovalPageService) {}

  @Get()
  async index(
    @Req() req: FastifyRequest,
    @Query() query: CodeQueryDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    return render(
      reply,
      query.code !== undefined ? this.service.entry(query.code) : await this.service.view(req, null, query.user_code),
    );
  }

  // A link, not a form: the CSP's form-action 'self' would also apply to the redirect to the provider.
  @Get('oidc/start')
  async companySignIn(
    @Req() req: FastifyRequest,
    @Query() form: CompanySignInFormDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    return render(reply, await this.service.startCompanySignIn(req, form));
  }

  // The provider's query (code, state, iss and its own extras): openid-client validates it from the raw URL.
  @Get('oidc/callback')
  async companySignInCallback(
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    return render(reply, await this.service.finishCompanySignIn(req));
  }

  @Writes()
  @Post('session')
  async signIn(
    @Req() req: FastifyRequest,
    @Body() form: SignInFormDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    return render(reply, await this.service.signIn(req, form));
  }

  @Writes()
  @Post('sign-out')
  async signOut(
    @Req() req: FastifyRequest,
    @Body() form: SignOutFormDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    return render(reply, await this.service.signOut(req, form));
  }

  @Get(':code')
  async review(
    @Req() req: FastifyRequest,
    @Param('code') code: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    return render(reply, await this.service.view(req, code));
  }

  @Writes('scope', 'role')
  @Post(':code/decision')
  async decide(
    @Req() req: FastifyRequest,
    @Param('code') code: string,
    @Body() form: DecisionFormDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    return render(reply, await this.service.decide(req, code, form));
  }
}
