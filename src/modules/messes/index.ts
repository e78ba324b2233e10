export { MessesModule } from './messes.module';
export { MessDirectory } from './mess-directory';
export { MessGuard, MESS_NOT_FOUND } from './mess.guard';
export { memberMoved, PastMesses, type MembershipPeriod } from './past-messes';
export { MessesRepository, type MessLabel, UNCONFIGURED_NAME } from './messes.repository';
export { CAPACITY_MAX, SLUG_PATTERN, type MessRow, type MessUpi, messes } from './messes.schema';
