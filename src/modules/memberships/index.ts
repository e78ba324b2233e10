export { MembershipsModule } from './memberships.module';
