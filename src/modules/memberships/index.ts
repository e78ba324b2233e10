export { MembershipsModule } from './memberships.module';
export {
  type LockedForMove,
  type MemberMove,
  type MoveMade,
  MembershipsService,
} from './memberships.service';
