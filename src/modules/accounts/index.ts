export { AccountsModule } from './accounts.module';
export { AccountsService } from './accounts.service';
export type { ChargeDailyItems, ChargeItems } from './accounts.schema';
// A member's records for their data export and erasure (extension 2.3).
export { AccountsMemberData } from './accounts-member-data';
