/**
 * Settings of the notifications module: the mail and messaging providers, the delivery queue and the schedules.
 * Read by `loadConfig` (the one place that looks at the environment). A provider with missing settings is not an
 * error: that channel is disabled and says so once in the log. A value that is present but malformed is.
 */
export interface MailSettings {
  /** True when SMTP_EMAIL and SMTP_PASSWORD are both set. */
  configured: boolean;
  /** Sender address; also the account name and the recipient of the test email. */
  email?: string;
  /** App password with its spaces removed. */
  password?: string;
  host: string;
  port: number;
  secure: boolean;
  timeoutMs: number;
  /** Pooled SMTP connections kept open to the server, and messages sent over one before it is renewed. */
  maxConnections: number;
  maxMessages: number;
  /** Names of the missing settings, for the one log line that says email is disabled. */
  missing: string[];
}

export interface MessagingSettings {
  /** True when MSG_ACCOUNT_SID, MSG_AUTH_TOKEN and MSG_PHONE_NUMBER are all set. */
  configured: boolean;
  accountSid?: string;
  authToken?: string;
  /** E.164 sender number (the WhatsApp-enabled number or the sandbox's). */
  phoneNumber?: string;
  /** E.164 recipient of the test message in the sandbox; unset in production. */
  testPhone?: string;
  /** Origin (and optional path prefix) that replaces the provider's https://api.twilio.com. */
  apiBaseUrl: string;
  monthlyLimit: number;
  timeoutMs: number;
  /** First wait before an accepted message's status is read again (doubling after each read). */
  checkSeconds: number;
  /** How long after its acceptance a message may stay on its way before it counts as failed. */
  confirmSeconds: number;
  missing: string[];
}

export interface NotificationSettings {
  mail: MailSettings;
  messaging: MessagingSettings;
  queue: {
    /** Runs the delivery worker in this process (tests turn it off and drain the queue by hand). */
    workerEnabled: boolean;
    pollSeconds: number;
    /** Jobs fetched at once; a full batch is followed by the next fetch without waiting. */
    batchSize: number;
    /** Jobs of a batch delivered at the same time. */
    concurrency: number;
    /** At least this many retries in pg-boss; raised to what the deadline needs (the deadline decides). */
    retryLimit: number;
    /** Transient failures are retried until this long after the notification was queued, then it fails. */
    retryDeadlineHours: number;
    retryDelaySeconds: number;
    retryDelayMaxSeconds: number;
    /** A job active longer than this (its worker died) is handed out again. */
    expireSeconds: number;
  };
  schedules: {
    /** Runs the minute tick of @nestjs/schedule in this process. */
    enabled: boolean;
    mealReminderMinutes: number;
    attendanceConfirmationMinutes: number;
    /** Minutes before a meal's start at which managers get its expected headcount (then its changes until the end). */
    headcountMinutes: number;
    /** `HH:MM` in the mess time zone at which the monthly messages go out. */
    monthlyTime: string;
    /** Days after the first of the month on which PAYMENT_DUE goes out. */
    paymentDueDays: number;
    /** Which cost-share method the monthly messages quote (the bill endpoint's default is `spec`). */
    /** Unset: the mess's chargeMethod (what a close charges), so the summary shows what the member is charged. */
    shareMethod?: 'spec' | 'proportional';
  };
  /** Test sends per member per hour. */
  testPerHour: number;
}

export const DEFAULT_SMTP_HOST = 'smtp.gmail.com';
export const DEFAULT_MSG_API_BASE_URL = 'https://api.twilio.com';
const E164 = /^\+[1-9]\d{7,14}$/;
const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;

export function readNotificationSettings(env: NodeJS.ProcessEnv, problems: string[]): NotificationSettings {
  const str = (name: string): string | undefined => {
    const raw = env[name]?.trim();
    return raw ? raw : undefined;
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = str(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = str(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (['true', '1', 'yes'].includes(raw)) return true;
    if (['false', '0', 'no'].includes(raw)) return false;
    problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  };

  // ---- mail ----
  const email = str('SMTP_EMAIL');
  const rawPassword = str('SMTP_PASSWORD');
  const password = rawPassword?.replace(/\s+/g, '');
  const host = str('SMTP_HOST') ?? DEFAULT_SMTP_HOST;
  if (email && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))
    problems.push('SMTP_EMAIL must be an email address');
  // The default provider issues 16-character app passwords, shown in groups of four with spaces.
  if (password && host === DEFAULT_SMTP_HOST && password.length !== 16) {
    problems.push('SMTP_PASSWORD must be the 16-character app password (spaces are ignored)');
  }
  const port = int('SMTP_PORT', 465, 1, 65535);
  const mailMissing = [...(email ? [] : ['SMTP_EMAIL']), ...(password ? [] : ['SMTP_PASSWORD'])];
  const mail: MailSettings = {
    configured: mailMissing.length === 0,
    email,
    password,
    host,
    port,
    // TLS from the first byte on 465; plain with STARTTLS elsewhere (587, 25), unless said otherwise.
    secure: bool('SMTP_SECURE', port === 465),
    timeoutMs: int('SMTP_TIMEOUT_MS', 10_000, 100, 120_000),
    maxConnections: int('SMTP_MAX_CONNECTIONS', 5, 1, 100),
    maxMessages: int('SMTP_MAX_MESSAGES', 100, 1, 100_000),
    missing: mailMissing,
  };

  // ---- messaging ----
  const accountSid = str('MSG_ACCOUNT_SID');
  const authToken = str('MSG_AUTH_TOKEN');
  const phoneNumber = str('MSG_PHONE_NUMBER');
  const testPhone = str('MSG_TEST_PHONE');
  if (accountSid && !/^AC[0-9a-fA-F]{32}$/.test(accountSid)) {
    problems.push('MSG_ACCOUNT_SID must be AC followed by 32 hexadecimal characters');
  }
  if (phoneNumber && !E164.test(phoneNumber))
    problems.push('MSG_PHONE_NUMBER must be in E.164 form, e.g. +14155238886');
  if (testPhone && !E164.test(testPhone))
    problems.push('MSG_TEST_PHONE must be in E.164 form, e.g. +919876543210');
  const apiBaseUrl = (str('MSG_API_BASE_URL') ?? DEFAULT_MSG_API_BASE_URL).replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s/]+/.test(apiBaseUrl)) problems.push('MSG_API_BASE_URL must be an http(s) URL');
  const messagingMissing = [
    ...(accountSid ? [] : ['MSG_ACCOUNT_SID']),
    ...(authToken ? [] : ['MSG_AUTH_TOKEN']),
    ...(phoneNumber ? [] : ['MSG_PHONE_NUMBER']),
  ];
  const messaging: MessagingSettings = {
    configured: messagingMissing.length === 0,
    accountSid,
    authToken,
    phoneNumber,
    testPhone,
    apiBaseUrl,
    monthlyLimit: int('MSG_MONTHLY_LIMIT', 100, 0, 10_000_000),
    timeoutMs: int('MSG_TIMEOUT_MS', 10_000, 100, 120_000),
    checkSeconds: int('MSG_STATUS_CHECK_SECONDS', 15, 1, 3_600),
    confirmSeconds: int('MSG_STATUS_DEADLINE_SECONDS', 900, 10, 86_400),
    missing: messagingMissing,
  };

  const monthlyTime = str('NOTIFY_MONTHLY_TIME') ?? '09:00';
  const shareMethod = str('NOTIFY_SHARE_METHOD');
  if (shareMethod !== undefined && shareMethod !== 'spec' && shareMethod !== 'proportional') {
    problems.push('NOTIFY_SHARE_METHOD must be spec or proportional');
  }
  if (!HHMM.test(monthlyTime)) problems.push('NOTIFY_MONTHLY_TIME must be HH:MM (24-hour clock)');

  // Under NODE_ENV=test nothing runs by itself: tests drain the queue and call the schedule handlers directly.
  const background = env.NODE_ENV !== 'test';
  return {
    mail,
    messaging,
    queue: {
      workerEnabled: bool('NOTIFY_WORKER_ENABLED', background),
      pollSeconds: int('NOTIFY_WORKER_POLL_SECONDS', 2, 1, 600),
      batchSize: int('NOTIFY_WORKER_BATCH_SIZE', 25, 1, 500),
      concurrency: int('NOTIFY_WORKER_CONCURRENCY', 8, 1, 100),
      retryLimit: int('NOTIFY_RETRY_LIMIT', 6, 0, 100),
      retryDeadlineHours: int('NOTIFY_RETRY_DEADLINE_HOURS', 24, 1, 720),
      retryDelaySeconds: int('NOTIFY_RETRY_DELAY_SECONDS', 30, 1, 86_400),
      retryDelayMaxSeconds: int('NOTIFY_RETRY_DELAY_MAX_SECONDS', 3_600, 1, 7 * 86_400),
      expireSeconds: int('NOTIFY_JOB_EXPIRE_SECONDS', 300, 30, 86_400),
    },
    schedules: {
      enabled: bool('NOTIFY_SCHEDULES_ENABLED', background),
      mealReminderMinutes: int('NOTIFY_MEAL_REMINDER_MINUTES', 60, 1, 720),
      attendanceConfirmationMinutes: int('NOTIFY_ATTENDANCE_CONFIRMATION_MINUTES', 30, 1, 720),
      headcountMinutes: int('NOTIFY_HEADCOUNT_MINUTES', 30, 1, 720),
      monthlyTime,
      paymentDueDays: int('NOTIFY_PAYMENT_DUE_DAYS', 7, 1, 27),
      shareMethod: shareMethod === 'proportional' || shareMethod === 'spec' ? shareMethod : undefined,
    },
    testPerHour: int('NOTIFY_TEST_PER_HOUR', 5, 1, 10_000),
  };
}
