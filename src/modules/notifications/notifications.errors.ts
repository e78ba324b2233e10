import { describeConstraint } from '../../common/errors/database-errors';

describeConstraint(
  'notification_preferences_channel_check',
  400,
  'preferredNotificationChannel must be email, whatsapp or both',
);
describeConstraint('notifications_type_check', 400, 'Unknown notification type');

/** `POST /notifications/test` when none of the channels it asks for is configured: nothing could be tried. */
export const NO_CHANNEL_CONFIGURED = {
  email: 'Email is not configured: set SMTP_EMAIL and SMTP_PASSWORD to send notifications by email',
  whatsapp:
    'WhatsApp is not configured: set MSG_ACCOUNT_SID, MSG_AUTH_TOKEN and MSG_PHONE_NUMBER to send WhatsApp messages',
  both:
    'No notification channel is configured: set SMTP_EMAIL and SMTP_PASSWORD (email) or MSG_ACCOUNT_SID, ' +
    'MSG_AUTH_TOKEN and MSG_PHONE_NUMBER (WhatsApp)',
} as const;
