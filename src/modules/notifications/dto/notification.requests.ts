import { PageQuery } from '../../../common/http/paging';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn } from 'class-validator';
import { Optional } from '../../../common/http/fields';
import { CHANNEL_PREFERENCES, type ChannelPreference } from '../notification-types';

const channelMessage = `must be one of ${CHANNEL_PREFERENCES.join(', ')}`;

export class SendTestNotificationDto {
  @ApiProperty({
    enum: CHANNEL_PREFERENCES,
    example: 'both',
    description: '`both` tries WhatsApp first and falls back to email, as real notifications do',
  })
  @IsIn(CHANNEL_PREFERENCES, { message: `channel ${channelMessage}` })
  channel: ChannelPreference;
}

export class SetChannelDto {
  @ApiProperty({
    enum: CHANNEL_PREFERENCES,
    example: 'both',
    description: '`whatsapp` and `both` need a phone number on the profile',
  })
  @IsIn(CHANNEL_PREFERENCES, { message: `preferredNotificationChannel ${channelMessage}` })
  preferredNotificationChannel: ChannelPreference;
}

const Switch = (description: string) => (target: object, key: string) => {
  ApiPropertyOptional({ type: Boolean, description, example: true })(target, key);
  // Optional(), not IsOptional(): left out is fine, null is refused (it would skip IsBoolean and reach the service).
  Optional()(target, key);
  IsBoolean({ message: `${key} must be true or false` })(target, key);
};

/** One optional switch per notification type; keys not listed here, and null, are refused (400). */
export class UpdatePreferencesDto {
  @Switch('MEAL_REMINDER: reminder before a meal you have not marked') mealReminders?: boolean;
  @Switch('PAYMENT_DUE: your account balance is due') paymentDue?: boolean;
  @Switch('COST_SUMMARY: monthly cost breakdown on the 1st') costSummary?: boolean;
  @Switch('DISCREPANCY_ALERT (managers): attendance changed after a meal, or marked without a menu')
  discrepancyAlerts?: boolean;
  @Switch('MEAL_UPDATE: a menu changed; managers: a meal’s headcount and its changes') mealUpdates?: boolean;
  @Switch('EXPENSE_ADDED (managers, treasurers): a new expense was recorded') expenseAdded?: boolean;
  @Switch('BUDGET_EXCEEDED (managers, treasurers, admins): the month went over budget')
  budgetExceeded?: boolean;
  @Switch('ATTENDANCE_CONFIRMATION: confirm your mark before the meal') attendanceConfirmations?: boolean;
  @Switch('PAYMENT_RECEIVED: a receipt when a payment is recorded on your account') paymentReceived?: boolean;
  @Switch('LEAVE_DECIDED: your leave was approved or rejected') leaveDecisions?: boolean;
}

export class ListNotificationsQuery extends PageQuery(20, 100) {}
