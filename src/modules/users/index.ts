export { UsersModule } from './users.module';
export { UsersService } from './users.service';
// Auth's way to sign members up and in.
export { CredentialsService } from './credentials.service';
// Moving members between messes (the memberships module opens the move's transaction and calls the methods taking it).
export {
  messIsFull,
  type MovedMember,
  pseudonymOf,
  throwIfAnyUnknown,
  UserAdministrationService,
} from './user-administration.service';
export { toUserResponse, UserEnvelopeDto, UserResponseDto } from './dto/user.response';
// Read-only relations other modules' queries join for a member's name, and auth's for a token's holder (see
// member-names.ts); the table itself is this module's alone.
export { memberDirectory, memberNames, tokenHolders } from './member-names';
export { type UserRow } from './users.schema';
export { RoomField } from './dto/user.requests';
export { toUserSummary, UserSummaryDto } from './dto/user.response';
// Extension 2.3: since when each member is on each mess's rolls (billing's daily rate, the term moves).
export { MembershipPeriods, onRollsOn, type RollsSpan } from './membership-periods';
