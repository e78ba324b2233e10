import { MessDirectory } from '../messes';
import { toUserSummary } from '../users';
import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Allow, type CurrentMember, CurrentUser, Public } from '../../common/auth/auth.decorators';
import { IdPipe } from '../../common/http/id.pipe';
import { BUSY } from '../../common/concurrency/work-limiter';
import { ApiAuth, ApiErrors, ApiRoleAuth, MessageDto } from '../../common/http/api-docs';
import { CredentialRouteThrottle, LoginThrottle } from '../../common/http/rate-limit';
import {
  ChangePasswordDto,
  ForgotPasswordDto,
  IdpLoginDto,
  LoginDto,
  LoginResponseDto,
  PasswordChangedDto,
  RegisterDto,
  RegisterResponseDto,
  ResetPasswordDto,
  VerifyResponseDto,
} from './dto/auth.dto';
import { AuthService } from './auth.service';
import { PasswordResetService, RESET_TOKEN_INVALID } from './password-reset.service';

/** The forgot route's one answer, whether or not the email is registered. */
export const RESET_MAIL_ANSWER =
  'If this email belongs to a member, a link to set a new password is on its way. It works once, for a short time.';

@ApiTags('Auth')
@Controller()
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly messes: MessDirectory,
    private readonly resets: PasswordResetService,
  ) {}

  @Public()
  @Post('auth/register')
  @ApiOperation({ summary: 'Register; the account is a pending student until an admin approves it' })
  @ApiCreatedResponse({ type: RegisterResponseDto })
  @ApiErrors(400, [409, 'Email already registered'], [503, BUSY])
  async register(@Body() body: RegisterDto): Promise<RegisterResponseDto> {
    const user = await this.auth.register(body);
    return {
      success: true,
      message: 'Registration received. An admin must approve your account before you can log in.',
      userId: user.id,
    };
  }

  @Public()
  @LoginThrottle()
  @Post('auth/login')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Log in with email and password',
    description:
      'Unknown email 404, wrong password 401, pending or rejected account 403. Failures are throttled per IP and per email; correct logins are not counted.',
  })
  @ApiOkResponse({ type: LoginResponseDto })
  @ApiErrors(
    400,
    [401, 'Invalid email or password'],
    [403, 'Account pending approval', 'Account rejected'],
    [404, 'User not found'],
    429,
    [503, BUSY],
  )
  login(@Body() body: LoginDto): Promise<LoginResponseDto> {
    return this.auth.login(body.email, body.password);
  }

  @Public()
  @LoginThrottle()
  @Post('auth/idp')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Log in with an identity-provider ID token',
    description:
      'A first login creates a pending student (403 until approved); a verified email of an existing member links to it.',
  })
  @ApiOkResponse({ type: LoginResponseDto })
  @ApiErrors(
    400,
    [401, 'Invalid identity-provider token', 'The identity provider has not verified this email address'],
    [403, 'Account pending approval', 'Account rejected'],
    [409, 'This email is linked to another identity-provider account'],
    429,
    [503, 'Identity-provider login is not configured'],
  )
  loginWithIdp(@Body() body: IdpLoginDto): Promise<LoginResponseDto> {
    return this.auth.loginWithIdp(body.token);
  }

  @Post('auth/logout')
  @HttpCode(200)
  @ApiOperation({ summary: 'Log out: this token is revoked on the server' })
  @ApiOkResponse({ type: MessageDto })
  @ApiAuth()
  async logout(@CurrentUser() member: CurrentMember): Promise<MessageDto> {
    await this.auth.logout(member);
    return { success: true, message: 'Logged out' };
  }

  @Get('auth/verify')
  @ApiOperation({ summary: 'Check a token and read who it belongs to' })
  @ApiOkResponse({ type: VerifyResponseDto })
  @ApiAuth()
  async verifyToken(@CurrentUser() member: CurrentMember): Promise<VerifyResponseDto> {
    return {
      valid: true,
      user: toUserSummary({ ...member, messId: member.messId }, await this.messes.labels()),
    };
  }

  @Get('verify')
  @ApiOperation({ summary: 'Alias of GET /auth/verify' })
  @ApiOkResponse({ type: VerifyResponseDto })
  @ApiAuth()
  verifyTokenAlias(@CurrentUser() member: CurrentMember): Promise<VerifyResponseDto> {
    return this.verifyToken(member);
  }

  @LoginThrottle()
  @Post('auth/password')
  @HttpCode(200)
  @ApiOperation({ summary: 'Change your password; every earlier token stops working, a new one is returned' })
  @ApiOkResponse({ type: PasswordChangedDto })
  @ApiAuth(400, [401, 'Current password is incorrect'], 429, [503, BUSY])
  async changePassword(
    @CurrentUser() member: CurrentMember,
    @Body() body: ChangePasswordDto,
  ): Promise<PasswordChangedDto> {
    const token = await this.auth.changePassword(member, body);
    return { success: true, message: 'Password changed. Every earlier token is now invalid.', token };
  }

  @Public()
  @CredentialRouteThrottle()
  @Post('auth/password/forgot')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Forgot your password: a link to set a new one is mailed',
    description:
      'Always the same 200, whether or not the email is registered. A registered member (not rejected) is mailed ' +
      '`${PUBLIC_URL}/reset-password?token=…`, valid PASSWORD_RESET_TTL_MINUTES and once. Throttled per IP; at most ' +
      'a few mails per email an hour (past that the answer is the same and nothing is sent).',
  })
  @ApiOkResponse({ type: MessageDto })
  @ApiErrors(400, 429)
  async forgotPassword(@Body() body: ForgotPasswordDto): Promise<MessageDto> {
    await this.resets.forgot(body.email);
    return { success: true, message: RESET_MAIL_ANSWER };
  }

  @Public()
  @CredentialRouteThrottle()
  @Post('auth/password/reset')
  @HttpCode(200)
  @ApiOperation({
    summary: "Set a new password with a mailed link's token; every earlier token of the member stops working",
    description: 'A token unknown, expired or already used is 400. Log in with the new password afterwards.',
  })
  @ApiOkResponse({ type: MessageDto })
  @ApiErrors([400, RESET_TOKEN_INVALID], 429, [503, BUSY])
  async resetPassword(@Body() body: ResetPasswordDto): Promise<MessageDto> {
    await this.resets.reset(body.token, body.newPassword);
    return {
      success: true,
      message: 'Password set. Every earlier token is now invalid; log in with the new password.',
    };
  }

  @Post('users/:id/password-reset')
  @Allow('users.send-password-reset')
  @HttpCode(202)
  @ApiOperation({ summary: 'Mail a member a link to set a new password (admin)' })
  @ApiResponse({ status: 202, type: MessageDto })
  @ApiRoleAuth(400, [404, 'User not found'])
  async sendPasswordReset(
    @CurrentUser() caller: CurrentMember,
    @Param('id', IdPipe) id: string,
  ): Promise<MessageDto> {
    await this.resets.sendFor(caller, id);
    return { success: true, message: 'A link to set a new password is on its way to the member' };
  }
}
