import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './app-config';

const problemsOf = (env: NodeJS.ProcessEnv): string[] => {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
};

describe('loadConfig', () => {
  it('refuses to start in production without a database URL or a strong secret, naming each', () => {
    const problems = problemsOf({ NODE_ENV: 'production' });
    expect(problems.join('\n')).toMatch(/DATABASE_URL is required in production/);
    expect(problems.join('\n')).toMatch(/JWT_SECRET is required in production/);
    expect(
      problemsOf({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/mess', JWT_SECRET: 'short' }),
    ).toEqual(['JWT_SECRET must be at least 32 characters long']);
  });

  it('accepts a complete production configuration', () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://db/mess',
      JWT_SECRET: 'k3Jq9-vX2mTz8_LpR4wYc6Hn0bDs7FgA',
      CORS_ORIGINS: 'https://mess.college.edu, https://admin.college.edu',
    });
    expect(config.corsOrigins).toEqual(['https://mess.college.edu', 'https://admin.college.edu']);
    expect(config.port).toBe(3000);
    expect(config.messTimezone).toBe('Asia/Kolkata');
  });

  it('names malformed values', () => {
    const problems = problemsOf({
      PORT: 'eighty',
      MESS_TIMEZONE: 'Mars/Olympus',
      DATABASE_URL: 'mysql://x',
      ADMIN_EMAIL: 'a@b.c',
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^PORT must be an integer/),
        expect.stringMatching(/^MESS_TIMEZONE/),
        expect.stringMatching(/^DATABASE_URL must start with postgres/),
        'ADMIN_EMAIL and ADMIN_PASSWORD must be set together',
      ]),
    );
  });

  it("takes the owner of the tables apart from the service's login, only beside DATABASE_URL", () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://mess_runtime@db/mess',
      DATABASE_MIGRATION_URL: 'postgres://mess_owner@db/mess',
      DATA_DIR: 'memory://',
    });
    expect(config.migrationUrl).toBe('postgres://mess_owner@db/mess');
    expect(
      loadConfig({ DATABASE_URL: 'postgres://db/mess', DATA_DIR: 'memory://' }).migrationUrl,
    ).toBeUndefined();
    expect(
      problemsOf({ DATABASE_MIGRATION_URL: 'postgres://mess_owner@db/mess', DATA_DIR: 'memory://' }),
    ).toEqual(["DATABASE_MIGRATION_URL needs DATABASE_URL (the service's own login) beside it"]);
    expect(
      problemsOf({
        DATABASE_URL: 'postgres://db/mess',
        DATABASE_MIGRATION_URL: 'mysql://x',
        DATA_DIR: 'memory://',
      }),
    ).toEqual(['DATABASE_MIGRATION_URL must start with postgres:// or postgresql://']);
  });

  it('refuses a low-variety JWT secret in production only', () => {
    const production = { NODE_ENV: 'production', DATABASE_URL: 'postgres://db/mess' };
    expect(problemsOf({ ...production, JWT_SECRET: 'x'.repeat(40) })).toEqual([
      expect.stringMatching(/^JWT_SECRET must use at least 10 different characters in production/),
    ]);
    expect(problemsOf({ ...production, JWT_SECRET: 'abababababababababababababababab12' })).toHaveLength(1);
    expect(problemsOf({ ...production, JWT_SECRET: 'abcdefghij'.repeat(4) })).toEqual([]);
    expect(problemsOf({ JWT_SECRET: 'x'.repeat(40), DATA_DIR: 'memory://' })).toEqual([]);
  });

  it('validates LOG_LEVEL, naming it', () => {
    expect(problemsOf({ LOG_LEVEL: 'loud', DATA_DIR: 'memory://' })).toEqual([
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
    ]);
    expect(loadConfig({ LOG_LEVEL: 'debug', DATA_DIR: 'memory://' }).logLevel).toBe('debug');
    expect(loadConfig({ DATA_DIR: 'memory://' }).logLevel).toBe('info');
    expect(loadConfig({ NODE_ENV: 'test', DATA_DIR: 'memory://' }).logLevel).toBe('silent');
  });

  it('reads the backup settings: under DATA_DIR, 7 kept, daily at 03:30 (off under test), validated', () => {
    const secret = 'a-secret-long-enough-for-hs256-0123456789';
    expect(loadConfig({ DATA_DIR: '/srv/mess', JWT_SECRET: secret }).backup).toEqual({
      dir: '/srv/mess/backups',
      keep: 7,
      dailyAt: '03:30',
    });
    expect(loadConfig({ NODE_ENV: 'test', DATA_DIR: 'memory://' }).backup.dailyAt).toBeNull();
    expect(
      loadConfig({ DATA_DIR: 'memory://', BACKUP_DIR: '/mnt/usb', BACKUP_KEEP: '30', BACKUP_DAILY_AT: 'off' })
        .backup,
    ).toEqual({ dir: '/mnt/usb', keep: 30, dailyAt: null });
    expect(problemsOf({ DATA_DIR: 'memory://', BACKUP_KEEP: '0', BACKUP_DAILY_AT: '3:30' })).toEqual([
      'BACKUP_KEEP must be an integer from 1 to 1000 (got "0")',
      'BACKUP_DAILY_AT must be a time HH:MM (mess time zone) or off (got "3:30")',
    ]);
  });

  it('reads TRUST_PROXY as off, a number of proxies, or their addresses; refuses true', () => {
    const trust = (value?: string) => loadConfig({ TRUST_PROXY: value, DATA_DIR: 'memory://' }).trustProxy;
    expect(trust(undefined)).toBe(false);
    expect(trust('false')).toBe(false);
    expect(trust('0')).toBe(false);
    expect(trust('2')).toBe(2);
    expect(trust('10.0.0.0/8, 192.168.1.10,loopback, ::1, fd00::/8')).toEqual([
      '10.0.0.0/8',
      '192.168.1.10',
      'loopback',
      '::1',
      'fd00::/8',
    ]);
    expect(problemsOf({ TRUST_PROXY: 'true', DATA_DIR: 'memory://' })).toEqual([
      expect.stringMatching(/^TRUST_PROXY=true would trust every X-Forwarded-For hop/),
    ]);
    for (const bad of ['yes', '10.0.0.0/33', '300.1.1.1', '11', '10.0.0.1/8/2']) {
      expect(problemsOf({ TRUST_PROXY: bad, DATA_DIR: 'memory://' })).toEqual([
        expect.stringMatching(/^TRUST_PROXY must be/),
      ]);
    }
  });

  it('outside production makes a JWT secret once and keeps it under DATA_DIR', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mess-config-'));
    const first = loadConfig({ DATA_DIR: dir });
    const second = loadConfig({ DATA_DIR: dir });
    expect(first.jwtSecret.length).toBeGreaterThanOrEqual(32);
    expect(second.jwtSecret).toBe(first.jwtSecret);
    expect(readFileSync(join(dir, 'jwt-secret'), 'utf8')).toBe(first.jwtSecret);
  });
});
