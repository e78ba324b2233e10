import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Role, UserStatus } from '../../modules/users/users.schema';

/** The caller as the auth guard established it for this request. */
export interface CurrentMember {
  id: string;
  email: string;
  fullName: string;
  role: Role;
  status: UserStatus;
  /** The token's id and expiry, so logout can revoke exactly this token. */
  tokenId: string;
  tokenExpiresAt: Date;
}

export const IS_PUBLIC = 'mess:public';
export const ROLES = 'mess:roles';

/** No token needed: the routes the contract calls public. */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/** Only these roles pass; `admin` always passes. */
export const Roles = (...roles: Role[]) => SetMetadata(ROLES, roles);

export const CurrentUser = createParamDecorator((_: unknown, ctx: ExecutionContext): CurrentMember => {
  return ctx.switchToHttp().getRequest<{ member: CurrentMember }>().member;
});

export const isPrivileged = (member: Pick<CurrentMember, 'role'>): boolean => member.role !== 'student';
