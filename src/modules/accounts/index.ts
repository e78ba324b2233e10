export { AccountsModule } from './accounts.module';
export { AccountsService } from './accounts.service';
export type { ChargeDailyItems, ChargeItems } from './accounts.schema';
