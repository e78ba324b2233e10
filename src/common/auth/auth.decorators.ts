import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Permission } from './permissions';
import type { Role, UserStatus } from './roles';

/** The caller as the auth guard established it for this request. */
export interface CurrentMember {
  id: string;
  email: string;
  fullName: string;
  role: Role;
  status: UserStatus;
  /** The mess the member belongs to now: where their requests act unless they name another. */
  messId: string;
  /** The token's id and expiry, so logout can revoke exactly this token. */
  tokenId: string;
  tokenExpiresAt: Date;
}

export const IS_PUBLIC = 'mess:public';
export const PERMISSION = 'mess:permission';

/** No token needed: the routes the contract calls public. */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/** Only a member whose role holds this permission passes (see `permissions.ts`; `admin` holds them all). */
export const Allow = (permission: Permission) => SetMetadata(PERMISSION, permission);

export const CurrentUser = createParamDecorator((_: unknown, ctx: ExecutionContext): CurrentMember => {
  return ctx.switchToHttp().getRequest<{ member: CurrentMember }>().member;
});

export const OWN_RECORDS_ONLY = 'mess:own-records-only';
/**
 * The route shows only the caller's own records (their account, marks, extras, leave, share), or pays what they owe
 * (the UPI link, their payment claim): a member may name, with `mess`, a mess they belonged to and read what they
 * did there, or pay it (extension 2.2).
 */
export const OwnRecordsInAnyMess = () => SetMetadata(OWN_RECORDS_ONLY, true);
