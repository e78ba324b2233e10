export { BillingModule } from './billing.module';
export { BillingService } from './billing.service';
export { MonthCache } from './month-cache';
export { billLines } from './month-charges';
export type { MessMonthFigures } from './billing.repository';
// A member's names in frozen bills, for erasure (extension 2.3).
export { BillingMemberData } from './billing-member-data';
