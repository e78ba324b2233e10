import { PaginationDto } from '../../../common/http/paging';
import { ApiProperty } from '@nestjs/swagger';
import {
  CHANNEL_PREFERENCES,
  CHANNELS,
  type Channel,
  type ChannelPreference,
  NOTIFICATION_TYPES,
  type NotificationType,
  PREFERENCE_SWITCHES,
  type PreferenceSwitches,
} from '../notification-types';
import {
  NOTIFICATION_STATUSES,
  type NotificationRow,
  type NotificationStatus,
} from '../notifications.schema';

class MailCheckDto {
  @ApiProperty() configured: boolean;
  @ApiProperty({ example: 'me********@gmail.com', description: 'Sender address, masked' }) email: string;
}

class MessagingCheckDto {
  @ApiProperty() configured: boolean;
  @ApiProperty({ example: 'AC****************************9f3a', description: 'Account SID, masked' })
  accountSid: string;
  @ApiProperty({ example: '+14155238886', description: 'Sender number (MSG_PHONE_NUMBER)' })
  phoneNumber: string;
  @ApiProperty({ description: 'MSG_TEST_PHONE is set (sandbox)' }) testPhoneConfigured: boolean;
}

class ConfigCheckDto {
  @ApiProperty({ type: MailCheckDto }) mail: MailCheckDto;
  @ApiProperty({ type: MessagingCheckDto }) messaging: MessagingCheckDto;
  @ApiProperty({ description: 'WhatsApp notifications can be sent' }) whatsappSupported: boolean;
}

export class ConfigCheckResponseDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: ConfigCheckDto }) config: ConfigCheckDto;
}

class TestDetailsDto {
  @ApiProperty({ example: 'sent', description: '`sent`, `skipped`, or the error text' }) email: string;
  @ApiProperty({ example: 'The user phone number is not available' }) whatsapp: string;
}

export class TestNotificationResponseDto {
  @ApiProperty({ description: 'True when a channel delivered the test message' }) success: boolean;
  @ApiProperty({ example: 'Test notification sent by email after WhatsApp failed' }) message: string;
  @ApiProperty({ type: TestDetailsDto }) details: TestDetailsDto;
  @ApiProperty() fallbackUsed: boolean;
}

class SwitchesDto {
  @ApiProperty() mealReminders: boolean;
  @ApiProperty() paymentDue: boolean;
  @ApiProperty() costSummary: boolean;
  @ApiProperty() discrepancyAlerts: boolean;
  @ApiProperty() mealUpdates: boolean;
  @ApiProperty() expenseAdded: boolean;
  @ApiProperty() budgetExceeded: boolean;
  @ApiProperty() attendanceConfirmations: boolean;
}

export class PreferencesResponseDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ enum: CHANNEL_PREFERENCES, description: 'preferredNotificationChannel' })
  channel: ChannelPreference;
  @ApiProperty({ type: SwitchesDto, description: `One switch per type: ${PREFERENCE_SWITCHES.join(', ')}` })
  preferences: PreferenceSwitches;
  @ApiProperty() phoneConfigured: boolean;
}

export class PreferencesChangedResponseDto extends PreferencesResponseDto {
  @ApiProperty({ example: 'Notification channel updated' }) message: string;
  @ApiProperty({ enum: CHANNEL_PREFERENCES }) preferredNotificationChannel: ChannelPreference;
}

export class NotificationResponseDto {
  @ApiProperty() _id: string;
  @ApiProperty({ enum: NOTIFICATION_TYPES }) type: NotificationType;
  @ApiProperty() title: string;
  @ApiProperty() content: string;
  @ApiProperty({ enum: NOTIFICATION_STATUSES, description: '`sent` when at least one channel succeeded' })
  status: NotificationStatus;
  @ApiProperty({ enum: CHANNELS, isArray: true, description: 'Channels tried, in order' })
  channels: Channel[];
  @ApiProperty({ enum: CHANNELS, nullable: true }) deliveredVia: Channel | null;
  @ApiProperty({ description: 'Email was used after WhatsApp failed' }) fallbackUsed: boolean;
  @ApiProperty() attempts: number;
  @ApiProperty({ type: String, nullable: true }) lastError: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) sentAt: string | null;
}

/**
 * A password-reset link is for the mailbox alone: the history shows the mail without its token, so whoever holds a
 * member's access token cannot read a link there and take the account over with a new password.
 */
const shownContent = (row: NotificationRow): string =>
  row.type === 'PASSWORD_RESET'
    ? row.content.replace(/([?&]token=)[^\s&]+/g, '$1(sent by email only)')
    : row.content;

export const toNotificationResponse = (row: NotificationRow): NotificationResponseDto => ({
  _id: row.id,
  type: row.type,
  title: row.title,
  content: shownContent(row),
  status: row.status,
  channels: row.channels,
  deliveredVia: row.deliveredVia,
  fallbackUsed: row.fallbackUsed,
  attempts: row.attempts,
  lastError: row.lastError,
  createdAt: row.createdAt.toISOString(),
  sentAt: row.sentAt ? row.sentAt.toISOString() : null,
});

export class NotificationListDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: [NotificationResponseDto] }) notifications: NotificationResponseDto[];
  @ApiProperty({ type: PaginationDto }) pagination: PaginationDto;
}
