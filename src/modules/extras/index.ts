export { ExtrasModule } from './extras.module';
export { ExtrasQueries } from './extras.queries';
// A member's records for their data export and erasure (extension 2.3).
export { ExtrasMemberData } from './extras-member-data';
