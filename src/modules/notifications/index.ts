export { NotificationsModule } from './notifications.module';
// A member's records for their data export and erasure (extension 2.3).
export { NotificationsMemberData } from './notifications-member-data';
