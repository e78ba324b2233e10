export { MessesModule } from './messes.module';
export { MessDirectory } from './mess-directory';
export { MessGuard, MESS_NOT_FOUND } from './mess.guard';
export { memberMoved, PastMesses, type MembershipPeriod } from './past-messes';
export { type MessLabel, UNCONFIGURED_NAME } from './messes.repository';
export { CAPACITY_MAX, SLUG_PATTERN, type MessRow, type MessUpi } from './messes.schema';
// Read-only: the row of every mess, for a query of another module that joins it (the mess catalogue's list).
export { messRows } from './mess-rows';
