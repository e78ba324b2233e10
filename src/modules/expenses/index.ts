export { ExpensesModule } from './expenses.module';
export { ExpensesQueries } from './expenses.queries';
