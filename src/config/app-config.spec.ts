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
      JWT_SECRET: 'x'.repeat(40),
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

  it('outside production makes a JWT secret once and keeps it under DATA_DIR', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mess-config-'));
    const first = loadConfig({ DATA_DIR: dir });
    const second = loadConfig({ DATA_DIR: dir });
    expect(first.jwtSecret.length).toBeGreaterThanOrEqual(32);
    expect(second.jwtSecret).toBe(first.jwtSecret);
    expect(readFileSync(join(dir, 'jwt-secret'), 'utf8')).toBe(first.jwtSecret);
  });
});
