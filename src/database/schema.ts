// Every table of the service, gathered for Drizzle's typed queries and for drizzle-kit. Each module owns its own.
export * from '../modules/users/users.schema';
export * from '../modules/auth/auth.schema';
export * from '../modules/mess-config/mess-config.schema';
export * from '../modules/attendance/attendance.schema';
export * from '../modules/feedback/feedback.schema';
export * from '../modules/expenses/expenses.schema';
export * from '../modules/meals/meals.schema';
export * from '../modules/billing/billing.schema';
export * from '../modules/notifications/notifications.schema';
export * from '../modules/accounts/accounts.schema';
export * from '../modules/leave/leave.schema';
export * from '../modules/audit/audit.schema';
export * from '../modules/extras/extras.schema';
