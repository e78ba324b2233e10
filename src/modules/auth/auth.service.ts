import { PrivacyNotice } from '../privacy-notice';
import { MessDirectory } from '../messes';
import { FIRST_MESS_ID } from '../../common/tenancy/mess-scope';
import { HttpStatus, Injectable, Logger } from '@nestjs/common';
import { CurrentMember } from '../../common/auth/auth.decorators';
import { ApiError, badRequest, forbidden, notFound, unauthorized } from '../../common/errors/api-error';
import { isUniqueViolation } from '../../common/errors/database-errors';
import { CredentialsService, toUserSummary, UserRow, UsersService } from '../users';
import { ChangePasswordDto, LoginResponseDto, RegisterDto } from './dto/auth.dto';
import { IdpNotConfiguredError, IdpVerifier } from './idp-verifier';
import { TokenService } from './token.service';

@Injectable()
export class AuthService {
  private readonly logger = new Logger(AuthService.name);

  constructor(
    private readonly users: UsersService,
    private readonly credentials: CredentialsService,
    private readonly tokens: TokenService,
    private readonly idp: IdpVerifier,
    private readonly messes: MessDirectory,
    private readonly privacyNotice: PrivacyNotice,
  ) {}

  /** Into the mess the body names (an `_id` or slug; unknown: 400 naming `mess`), else the first mess. */
  async register(body: RegisterDto): Promise<UserRow> {
    let messId = FIRST_MESS_ID;
    if (body.mess !== undefined) {
      const mess = await this.messes.find(body.mess);
      if (!mess) {
        // Say what was sent and what it should be: a newcomer copies the slug from a notice, and typos happen.
        const message = `no mess has the slug or _id "${body.mess}"; GET /api/messes lists them`;
        throw badRequest('Validation failed', [{ field: 'mess', message }]);
      }
      messId = mess.id;
    }
    const noticeVersion = await this.privacyNotice.accepted(body.acceptNotice);
    const user = await this.credentials.register({ ...body, messId, noticeVersion });
    this.logger.log({ userId: user.id }, 'Member registered; awaiting approval');
    return user;
  }

  /** Unknown email 404, wrong password 401, pending or rejected 403, as the contract orders. */
  async login(email: string, password: string): Promise<LoginResponseDto> {
    const user = await this.users.findByEmail(email);
    if (!user) throw notFound('User not found');
    if (!(await this.credentials.passwordMatches(user, password)))
      throw unauthorized('Invalid email or password');
    return this.issueFor(user);
  }

  /**
   * A known identity logs in; a verified email of an existing member is linked to it; anyone else becomes a
   * pending student and, like any pending member, is told to wait for approval (403).
   */
  async loginWithIdp(idToken: string): Promise<LoginResponseDto> {
    let identity;
    try {
      identity = await this.idp.verify(idToken);
    } catch (error) {
      if (error instanceof IdpNotConfiguredError)
        throw new ApiError(HttpStatus.SERVICE_UNAVAILABLE, error.message);
      throw unauthorized(error instanceof Error ? error.message : 'Invalid identity-provider token');
    }
    let user = await this.users.findByIdpId(identity.idpId);
    if (!user) {
      if (!identity.emailVerified)
        throw unauthorized('The identity provider has not verified this email address');
      const byEmail = await this.users.findByEmail(identity.email);
      if (byEmail) {
        if (byEmail.idpId && byEmail.idpId !== identity.idpId) {
          throw new ApiError(
            HttpStatus.CONFLICT,
            'This email is linked to another identity-provider account',
          );
        }
        user = await this.credentials.linkIdp(byEmail.id, identity.idpId);
        this.logger.log({ userId: user.id }, 'Identity-provider account linked');
      } else {
        try {
          user = await this.credentials.createFromIdp(identity);
          this.logger.log(
            { userId: user.id },
            'Member registered through the identity provider; awaiting approval',
          );
        } catch (error) {
          // Two first logins at once: the other one created the member.
          if (!isUniqueViolation(error)) throw error;
          user =
            (await this.users.findByIdpId(identity.idpId)) ?? (await this.users.findByEmail(identity.email));
          if (!user) throw error;
        }
      }
    }
    return this.issueFor(user);
  }

  logout(member: CurrentMember): Promise<void> {
    return this.tokens.revoke(member);
  }

  async changePassword(member: CurrentMember, body: ChangePasswordDto): Promise<string> {
    const user = await this.users.findById(member.id);
    if (!user) throw notFound('User not found');
    if (!(await this.credentials.passwordMatches(user, body.currentPassword))) {
      throw unauthorized('Current password is incorrect');
    }
    const updated = await this.credentials.changePassword(user, body.newPassword);
    this.logger.log({ userId: user.id }, 'Password changed; earlier tokens revoked');
    return this.tokens.issue(updated);
  }

  private async issueFor(user: UserRow): Promise<LoginResponseDto> {
    if (user.status === 'pending') throw forbidden('Account pending approval');
    if (user.status === 'rejected') throw forbidden('Account rejected');
    return {
      success: true,
      token: await this.tokens.issue(user),
      user: toUserSummary(user, await this.messes.labels()),
    };
  }
}
