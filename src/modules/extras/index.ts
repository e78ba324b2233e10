export { ExtrasModule } from './extras.module';
export { ExtrasQueries } from './extras.queries';
