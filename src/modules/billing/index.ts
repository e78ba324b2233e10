export { BillingModule } from './billing.module';
export { BillingService } from './billing.service';
export { MonthCache } from './month-cache';
export { billLines } from './month-charges';
export type { MessMonthFigures } from './billing.repository';
