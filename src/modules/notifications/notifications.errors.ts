import { describeConstraint } from '../../common/errors/database-errors';

describeConstraint(
  'notification_preferences_channel_check',
  400,
  'preferredNotificationChannel must be email, whatsapp or both',
);
describeConstraint('notifications_type_check', 400, 'Unknown notification type');
