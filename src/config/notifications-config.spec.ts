import { readNotificationSettings } from './notifications-config';

const read = (env: NodeJS.ProcessEnv) => {
  const problems: string[] = [];
  return { settings: readNotificationSettings(env, problems), problems };
};

describe('readNotificationSettings', () => {
  it('disables a channel whose settings are missing, naming them', () => {
    const { settings, problems } = read({ MSG_ACCOUNT_SID: `AC${'a'.repeat(32)}` });
    expect(problems).toEqual([]);
    expect(settings.mail).toMatchObject({ configured: false, missing: ['SMTP_EMAIL', 'SMTP_PASSWORD'] });
    expect(settings.messaging).toMatchObject({
      configured: false,
      missing: ['MSG_AUTH_TOKEN', 'MSG_PHONE_NUMBER'],
    });
  });

  it('defaults to the provider that issues 16-character app passwords, with or without spaces', () => {
    const { settings, problems } = read({
      SMTP_EMAIL: 'mess@gmail.com',
      SMTP_PASSWORD: 'abcd efgh ijkl mnop',
    });
    expect(problems).toEqual([]);
    expect(settings.mail).toMatchObject({
      configured: true,
      host: 'smtp.gmail.com',
      port: 465,
      secure: true,
      password: 'abcdefghijklmnop',
    });
    expect(read({ SMTP_EMAIL: 'mess@gmail.com', SMTP_PASSWORD: 'short' }).problems).toEqual([
      'SMTP_PASSWORD must be the 16-character app password (spaces are ignored)',
    ]);
    expect(read({ SMTP_PORT: '587' }).settings.mail.secure).toBe(false);
    // another server takes its own password
    expect(read({ SMTP_EMAIL: 'a@b.cd', SMTP_PASSWORD: 'x', SMTP_HOST: 'mail.local' }).problems).toEqual([]);
  });

  it('refuses malformed values', () => {
    const { problems } = read({
      MSG_ACCOUNT_SID: 'SK123',
      MSG_PHONE_NUMBER: '14155238886',
      MSG_TEST_PHONE: '+91-98765',
      MSG_API_BASE_URL: 'ftp://x',
      SMTP_SECURE: 'maybe',
      NOTIFY_MONTHLY_TIME: '25:00',
      MSG_MONTHLY_LIMIT: '-1',
      NOTIFY_SHARE_METHOD: 'fair',
    });
    expect(problems).toEqual([
      'SMTP_SECURE must be true or false (got "maybe")',
      'MSG_ACCOUNT_SID must be AC followed by 32 hexadecimal characters',
      'MSG_PHONE_NUMBER must be in E.164 form, e.g. +14155238886',
      'MSG_TEST_PHONE must be in E.164 form, e.g. +919876543210',
      'MSG_API_BASE_URL must be an http(s) URL',
      'MSG_MONTHLY_LIMIT must be an integer from 0 to 10000000 (got "-1")',
      'NOTIFY_SHARE_METHOD must be spec or proportional',
      'NOTIFY_MONTHLY_TIME must be HH:MM (24-hour clock)',
    ]);
  });

  it('reads the headcount lead and the retry deadline, with defaults, and refuses them out of range', () => {
    expect(read({}).settings.schedules.headcountMinutes).toBe(30);
    expect(read({}).settings.queue.retryDeadlineHours).toBe(24);
    const set = read({ NOTIFY_HEADCOUNT_MINUTES: '45', NOTIFY_RETRY_DEADLINE_HOURS: '48' });
    expect(set.problems).toEqual([]);
    expect(set.settings.schedules.headcountMinutes).toBe(45);
    expect(set.settings.queue.retryDeadlineHours).toBe(48);
    const bad = read({ NOTIFY_HEADCOUNT_MINUTES: '0', NOTIFY_RETRY_DEADLINE_HOURS: 'soon' });
    expect(bad.problems).toEqual([
      'NOTIFY_RETRY_DEADLINE_HOURS must be an integer from 1 to 720 (got "soon")',
      'NOTIFY_HEADCOUNT_MINUTES must be an integer from 1 to 720 (got "0")',
    ]);
  });

  it('runs the worker and the schedules by themselves except under NODE_ENV=test', () => {
    expect(read({}).settings.queue.workerEnabled).toBe(true);
    expect(read({}).settings.schedules.enabled).toBe(true);
    expect(read({ NODE_ENV: 'test' }).settings.queue.workerEnabled).toBe(false);
    expect(read({ NODE_ENV: 'test', NOTIFY_SCHEDULES_ENABLED: 'true' }).settings.schedules.enabled).toBe(
      true,
    );
  });
});
