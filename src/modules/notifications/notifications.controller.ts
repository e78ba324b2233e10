import { Body, Controller, Get, HttpCode, Post, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type CurrentMember, CurrentUser } from '../../common/auth/auth.decorators';
import { ApiAuth } from '../../common/http/api-docs';
import {
  ListNotificationsQuery,
  SendTestNotificationDto,
  SetChannelDto,
  UpdatePreferencesDto,
} from './dto/notification.requests';
import {
  ConfigCheckResponseDto,
  NotificationListDto,
  PreferencesChangedResponseDto,
  PreferencesResponseDto,
  TestNotificationResponseDto,
  toNotificationResponse,
} from './dto/notification.response';
import { NO_CHANNEL_CONFIGURED } from './notifications.errors';
import { NotificationsService } from './notifications.service';

@ApiTags('Notifications')
@Controller('notifications')
export class NotificationsController {
  constructor(private readonly notifications: NotificationsService) {}

  @Get()
  @ApiOperation({ summary: "The caller's own notifications, newest first" })
  @ApiOkResponse({ type: NotificationListDto })
  @ApiAuth(400)
  async listNotifications(
    @CurrentUser() caller: CurrentMember,
    @Query() query: ListNotificationsQuery,
  ): Promise<NotificationListDto> {
    const { rows, total } = await this.notifications.history(caller.id, query.page, query.limit);
    return {
      success: true,
      notifications: rows.map(toNotificationResponse),
      pagination: { page: query.page, limit: query.limit, total },
    };
  }

  @Get('config/check')
  @ApiOperation({
    summary: 'Which providers are configured, masked: never a password, an auth token or a full account SID',
  })
  @ApiOkResponse({ type: ConfigCheckResponseDto })
  @ApiAuth()
  checkNotificationConfig(): ConfigCheckResponseDto {
    return { success: true, config: this.notifications.configCheck() };
  }

  @Post('test')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Send a test message now: email to the configured sender address, WhatsApp to MSG_TEST_PHONE or your phone. ' +
      '`both` tries WhatsApp, then email. Limited per member per hour (429).',
    description:
      '503 when none of the channels asked for is configured (nothing is tried, nothing counts against the ' +
      'hourly limit; the error names the settings to set). Otherwise 200 with the outcome: `success` is false ' +
      'when a configured channel was tried and did not deliver, and `details` gives each channel’s reason.',
  })
  @ApiOkResponse({ type: TestNotificationResponseDto })
  @ApiAuth(400, 429, [503, ...Object.values(NO_CHANNEL_CONFIGURED)])
  sendTestNotification(
    @CurrentUser() caller: CurrentMember,
    @Body() body: SendTestNotificationDto,
  ): Promise<TestNotificationResponseDto> {
    return this.notifications.sendTest(caller, body.channel);
  }

  @Get('preferences')
  @ApiOperation({ summary: "The caller's channel and switches (defaults: email, every switch on)" })
  @ApiOkResponse({ type: PreferencesResponseDto })
  @ApiAuth()
  async getNotificationPreferences(@CurrentUser() caller: CurrentMember): Promise<PreferencesResponseDto> {
    return { success: true, ...(await this.notifications.preferences(caller.id)) };
  }

  @Put('preferences')
  @ApiOperation({ summary: 'Turn notification types on or off; only the switches sent change' })
  @ApiOkResponse({ type: PreferencesChangedResponseDto })
  @ApiAuth(400)
  async updateNotificationPreferences(
    @CurrentUser() caller: CurrentMember,
    @Body() body: UpdatePreferencesDto,
  ): Promise<PreferencesChangedResponseDto> {
    const preferences = await this.notifications.setSwitches(caller, { ...body });
    return {
      success: true,
      message: 'Notification preferences updated',
      preferredNotificationChannel: preferences.channel,
      ...preferences,
    };
  }

  @Post('preferences/channel')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Choose email, whatsapp or both; whatsapp and both need a phone number on the profile (else 400)',
  })
  @ApiOkResponse({ type: PreferencesChangedResponseDto })
  @ApiAuth(400)
  async setNotificationChannel(
    @CurrentUser() caller: CurrentMember,
    @Body() body: SetChannelDto,
  ): Promise<PreferencesChangedResponseDto> {
    const preferences = await this.notifications.setChannel(caller, body.preferredNotificationChannel);
    return {
      success: true,
      message: 'Notification channel updated',
      preferredNotificationChannel: preferences.channel,
      ...preferences,
    };
  }
}
