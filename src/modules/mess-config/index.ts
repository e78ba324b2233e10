export { MessConfigModule } from './mess-config.module';
export { MessConfigService } from './mess-config.service';
export { ConfiguredExpenseCategory } from './expense-category.check';
export {
  CHARGE_METHODS,
  type ChargeMethod,
  EXTRA_ITEM_NAME_MAX,
  EXTRA_PRICE_MAX_PAISE,
  type LeavePolicy,
  type MealTime,
} from './mess-config.schema';
export { type RebateBand } from './mess-config.schema';
export { type DailyRateSettings } from './mess-config.values';
