export { KitchenModule } from './kitchen.module';
export { KitchenQueries } from './kitchen.queries';
export { ForecastSchedule } from './forecast.schedule';
