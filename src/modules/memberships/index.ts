export { MembershipsModule } from './memberships.module';
export { MembershipsService } from './memberships.service';
