import { normalizeEmail } from '../common/identity/email';
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { type NotificationSettings, readNotificationSettings } from './notifications-config';

export type NodeEnv = 'development' | 'production' | 'test';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A production JWT secret needs at least this many different characters (`x` × 40 is long but guessable). */
export const JWT_SECRET_MIN_DISTINCT = 10;

/** proxy-addr's names for address ranges, accepted in TRUST_PROXY beside addresses and CIDRs. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY: `false` (default), a number of hops (1 = one ingress in front), or a comma list of the proxies'
 * addresses/CIDRs. `true` is refused: Fastify would then believe every X-Forwarded-For entry, and the left-most one
 * is whatever the client wrote, so a client could pick its own IP and escape per-IP rate limits.
 */
export function parseTrustProxy(raw: string | undefined, problems: string[]): false | number | string[] {
  const value = raw?.trim() ?? '';
  if (value === '' || value === 'false' || value === '0') return false;
  if (value === 'true') {
    problems.push(
      'TRUST_PROXY=true would trust every X-Forwarded-For hop, so clients could choose their own IP; set the number ' +
        'of proxies in front of the service (e.g. TRUST_PROXY=1) or their addresses (e.g. TRUST_PROXY=10.0.0.0/8)',
    );
    return false;
  }
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > 10) problems.push(`TRUST_PROXY must be a number of proxies from 0 to 10 (got "${value}")`);
    return hops;
  }
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const bad = entries.filter((entry) => !isAddressOrCidr(entry));
  if (bad.length || !entries.length) {
    problems.push(
      `TRUST_PROXY must be false, a number of proxies, or a comma list of addresses/CIDRs (bad: "${bad.join(', ') || value}")`,
    );
    return false;
  }
  return entries;
}

function isAddressOrCidr(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address, bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (!family || rest.length) return false;
  if (bits === undefined) return true;
  if (!/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

/** Typed, validated configuration. Also the injection token: inject `AppConfig` by type. */
export abstract class AppConfig {
  declare readonly env: NodeEnv;
  declare readonly port: number;
  declare readonly host: string;
  /** postgres://… when a PostgreSQL server is used; undefined for the embedded engine. */
  declare readonly databaseUrl: string | undefined;
  /** DATABASE_DIRECT_URL: the server without a pooler (migrations, LISTEN) when `databaseUrl` is a pooler's. */
  declare readonly directUrl: string | undefined;
  /**
   * DATABASE_MIGRATION_URL: the login that owns the tables (a direct connection), for the migrations and the job
   * queue's schema, when `databaseUrl`'s login is another that owns nothing (decision 0012); unset: that one does it.
   */
  declare readonly migrationUrl: string | undefined;
  /** DATABASE_POOL_MODE: `transaction` behind a pooler in transaction mode (the mess set per transaction). */
  declare readonly poolMode: 'session' | 'transaction';
  /** Folder of the embedded database and generated secrets; `memory://` keeps everything in memory. */
  declare readonly dataDir: string;
  /**
   * Never from the environment: the test harness sets it to a dump of a migrated database, so an in-memory engine
   * starts from it instead of running initdb and every migration again.
   */
  declare readonly embeddedTemplate?: Blob;
  /**
   * The embedded engine's backups (docs/operations.md): BACKUP_DIR (default `<DATA_DIR>/backups`), the newest
   * BACKUP_KEEP kept, and BACKUP_DAILY_AT, the mess-time `HH:MM` of the service's daily one (null: none). The
   * server engine takes none itself (pgBackRest does).
   */
  declare readonly backup: BackupSettings;
  declare readonly jwtSecret: string;
  /** Signs the counter's meal passes: PASS_SECRET, or a key derived from the JWT secret under its own label. */
  declare readonly passSecret: string;
  declare readonly corsOrigins: string[];
  declare readonly bodyLimitBytes: number;
  declare readonly logLevel: LogLevel;
  /**
   * Which X-Forwarded-For hops to believe (Fastify's `trustProxy`): `false` (none, the socket address is the
   * client), a number of proxies in front of the service, or the proxies' addresses/CIDRs.
   */
  declare readonly trustProxy: false | number | string[];
  declare readonly messTimezone: string;
  /**
   * Whether this process's scheduler closes the term windows at `closesAt` and makes their moves on `effectiveFrom`
   * (MESS_WINDOWS_SCHEDULE_ENABLED; on outside tests). Every replica may: each close and each move happens once.
   */
  declare readonly messWindowsScheduleEnabled: boolean;
  declare readonly admin: { email?: string; password?: string };
  declare readonly idp: { clientId?: string; allowedDomain?: string; certsUrl?: string };
  declare readonly redisUrl: string | undefined;
  declare readonly rateLimit: {
    perMinute: number;
    loginPerMinutePerIp: number;
    /** Failed attempts for one email from one source (IP) in 15 minutes before that source is slowed. */
    loginPer15MinPerEmail: number;
    /** Failed attempts for one email from all sources in 15 minutes before every failing source is slowed sooner. */
    loginFailureCeilingPerEmail: number;
    /** The first wait imposed on a source past its failures; it doubles with each further failure (≤ 15 min). */
    loginBackoffMs: number;
  };
  declare readonly db: {
    poolMax: number;
    statementTimeoutMs: number;
    connectionTimeoutMs: number;
    /** Client-side deadline of every query on the server engine: a silent database answers 503 after this. */
    queryTimeoutMs: number;
    /** Embedded engine: requests served at once, the longest wait for a turn and the most waiting (then 503). */
    embeddedConcurrency: number;
    embeddedQueueTimeoutMs: number;
    embeddedMaxQueue: number;
    /** How long a start-up step (migrate, the job queue) tries again while the database cannot serve (0: once). */
    startRetryMs: number;
  };
  declare readonly readyTimeoutMs: number;
  /** After SIGTERM, the most the process takes to stop: work still running then is abandoned and it exits 1. */
  declare readonly shutdownTimeoutMs: number;
  /** METRICS_TOKEN: when set, GET /api/metrics/prometheus asks for `Authorization: Bearer <it>`; else it is public. */
  declare readonly metricsToken: string | undefined;
  declare readonly bcryptCost: number;
  /** Password hashes computed at once (the rest wait), and how long one may wait before a 503. */
  declare readonly bcryptConcurrency: number;
  declare readonly bcryptQueueTimeoutMs: number;
  /** How long a password-reset link works. */
  declare readonly passwordResetTtlMinutes: number;
  /** The address members open the app at (no trailing slash): links in mails point there. */
  declare readonly publicUrl: string;
  /** Mail and messaging providers, delivery queue and schedules (see notifications-config.ts). */
  declare readonly notifications: NotificationSettings;
  /**
   * The payment gateway (Orders API, e.g. Razorpay): configured when the key id, key secret and webhook secret are
   * all set (PAY_KEY_ID, PAY_KEY_SECRET, PAY_WEBHOOK_SECRET); PAY_API_BASE_URL defaults to the provider's.
   */
  declare readonly payments: PaymentGatewaySettings;
}

export interface BackupSettings {
  dir: string;
  keep: number;
  dailyAt: string | null;
}

export interface PaymentGatewaySettings {
  keyId?: string;
  keySecret?: string;
  webhookSecret?: string;
  apiBaseUrl: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n - ${problems.join('\n - ')}`);
  }
}

export const IN_MEMORY = 'memory://';

/** Reads and validates the environment. The one place that looks at process.env. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const problems: string[] = [];
  const nodeEnv = (env.NODE_ENV ?? 'development') as NodeEnv;
  if (!['development', 'production', 'test'].includes(nodeEnv)) {
    problems.push(`NODE_ENV must be development, production or test (got "${nodeEnv}")`);
  }
  const production = nodeEnv === 'production';

  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const str = (name: string): string | undefined => {
    const raw = env[name]?.trim();
    return raw ? raw : undefined;
  };

  const databaseUrl = str('DATABASE_URL');
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must start with postgres:// or postgresql://');
  }
  if (production && !databaseUrl) {
    problems.push('DATABASE_URL is required in production (the embedded database is for one small instance)');
  }
  const directUrl = str('DATABASE_DIRECT_URL');
  if (directUrl && !/^postgres(ql)?:\/\//.test(directUrl)) {
    problems.push('DATABASE_DIRECT_URL must start with postgres:// or postgresql://');
  }
  if (directUrl && !databaseUrl)
    problems.push('DATABASE_DIRECT_URL needs DATABASE_URL (the pooled URL) beside it');
  const migrationUrl = str('DATABASE_MIGRATION_URL');
  if (migrationUrl && !/^postgres(ql)?:\/\//.test(migrationUrl)) {
    problems.push('DATABASE_MIGRATION_URL must start with postgres:// or postgresql://');
  }
  if (migrationUrl && !databaseUrl) {
    problems.push("DATABASE_MIGRATION_URL needs DATABASE_URL (the service's own login) beside it");
  }
  const poolMode = str('DATABASE_POOL_MODE') ?? 'session';
  if (poolMode !== 'session' && poolMode !== 'transaction') {
    problems.push(`DATABASE_POOL_MODE must be session or transaction (got "${poolMode}")`);
  }
  const dataDir = str('DATA_DIR') ?? './data';

  const jwtSecret = str('JWT_SECRET');
  if (jwtSecret && jwtSecret.length < 32) {
    problems.push('JWT_SECRET must be at least 32 characters long');
  } else if (jwtSecret && production && new Set(jwtSecret).size < JWT_SECRET_MIN_DISTINCT) {
    problems.push(
      `JWT_SECRET must use at least ${JWT_SECRET_MIN_DISTINCT} different characters in production (use a random value, e.g. openssl rand -base64 48)`,
    );
  } else if (!jwtSecret && production) {
    problems.push('JWT_SECRET is required in production (at least 32 characters)');
  }

  const passSecret = str('PASS_SECRET');
  if (passSecret && passSecret.length < 32) problems.push('PASS_SECRET must be at least 32 characters long');

  const timezone = str('MESS_TIMEZONE') ?? 'Asia/Kolkata';
  try {
    new Intl.DateTimeFormat('en-CA', { timeZone: timezone });
  } catch {
    problems.push(`MESS_TIMEZONE is not a known IANA time zone (got "${timezone}")`);
  }

  const adminEmail = str('ADMIN_EMAIL');
  const adminPassword = str('ADMIN_PASSWORD');
  if ((adminEmail && !adminPassword) || (!adminEmail && adminPassword)) {
    problems.push('ADMIN_EMAIL and ADMIN_PASSWORD must be set together');
  }
  if (adminPassword && adminPassword.length < 8)
    problems.push('ADMIN_PASSWORD must be at least 8 characters');

  const logLevel = str('LOG_LEVEL') ?? (nodeEnv === 'test' ? 'silent' : 'info');
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`);
  }

  const statementTimeoutMs = int('DB_STATEMENT_TIMEOUT_MS', 10_000, 100, 600_000);
  const queryTimeoutMs = int('DB_QUERY_TIMEOUT_MS', statementTimeoutMs + 1_000, 100, 601_000);
  if (queryTimeoutMs <= statementTimeoutMs) {
    problems.push(
      `DB_QUERY_TIMEOUT_MS (${queryTimeoutMs}) must be above DB_STATEMENT_TIMEOUT_MS (${statementTimeoutMs}): the ` +
        'server cancels a slow statement itself; the client-side deadline is for a server that does not answer at all',
    );
  }

  const publicUrl = (str('PUBLIC_URL') ?? 'http://localhost:5173').replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s/]+/.test(publicUrl)) problems.push('PUBLIC_URL must be an http(s) URL');

  const config = {
    env: nodeEnv,
    port: int('PORT', 3000, 0, 65535),
    host: str('HOST') ?? '0.0.0.0',
    databaseUrl,
    /** The server without the pooler (migrations, LISTEN); the pooled URL when unset. */
    directUrl,
    /** The owner of the tables (migrations, the job queue's schema); DATABASE_URL's login when unset. */
    migrationUrl,
    poolMode: poolMode as 'session' | 'transaction',
    dataDir,
    backup: readBackupSettings(env, dataDir, nodeEnv, int, problems),
    jwtSecret: jwtSecret ?? '',
    passSecret: passSecret ?? '',
    corsOrigins: (str('CORS_ORIGINS') ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
    bodyLimitBytes: int('BODY_LIMIT_BYTES', 100 * 1024, 1024, 50 * 1024 * 1024),
    logLevel: logLevel as LogLevel,
    trustProxy: parseTrustProxy(env.TRUST_PROXY, problems),
    messTimezone: timezone,
    messWindowsScheduleEnabled: !['false', '0', 'no'].includes(
      (env.MESS_WINDOWS_SCHEDULE_ENABLED ?? (nodeEnv === 'test' ? 'false' : 'true')).trim().toLowerCase(),
    ),
    admin: {
      email: adminEmail === undefined ? undefined : normalizeEmail(adminEmail),
      password: adminPassword,
    },
    idp: {
      clientId: str('IDP_CLIENT_ID'),
      allowedDomain: str('IDP_ALLOWED_DOMAIN'),
      certsUrl: str('IDP_CERTS_URL'),
    },
    redisUrl: str('REDIS_URL'),
    rateLimit: {
      perMinute: int('RATE_LIMIT_PER_MINUTE', 600, 1, 1_000_000),
      loginPerMinutePerIp: int('LOGIN_RATE_LIMIT_PER_MINUTE', 30, 1, 100_000),
      loginPer15MinPerEmail: int('LOGIN_RATE_LIMIT_PER_EMAIL', 10, 1, 100_000),
      loginFailureCeilingPerEmail: int('LOGIN_FAILURE_CEILING_PER_EMAIL', 100, 1, 1_000_000),
      loginBackoffMs: int('LOGIN_BACKOFF_MS', 30_000, 1, 900_000),
    },
    db: {
      poolMax: int('DB_POOL_MAX', 10, 1, 200),
      statementTimeoutMs,
      connectionTimeoutMs: int('DB_CONNECTION_TIMEOUT_MS', 1_500, 100, 60_000),
      queryTimeoutMs,
      embeddedConcurrency: int('EMBEDDED_CONCURRENCY', 8, 1, 256),
      embeddedQueueTimeoutMs: int('EMBEDDED_QUEUE_TIMEOUT_MS', 1_000, 50, 60_000),
      embeddedMaxQueue: int('EMBEDDED_MAX_QUEUE', 256, 1, 100_000),
      startRetryMs: int('DB_START_RETRY_SECONDS', 30, 0, 600) * 1000,
    },
    readyTimeoutMs: int('READY_TIMEOUT_MS', 1_500, 100, 60_000),
    shutdownTimeoutMs: int('SHUTDOWN_TIMEOUT_MS', 30_000, 1_000, 600_000),
    metricsToken: str('METRICS_TOKEN'),
    bcryptCost: int('BCRYPT_COST', 10, 10, 15),
    bcryptConcurrency: int('BCRYPT_CONCURRENCY', Math.max(1, availableParallelism() - 1), 1, 64),
    bcryptQueueTimeoutMs: int('BCRYPT_QUEUE_TIMEOUT_MS', 3_000, 100, 60_000),
    passwordResetTtlMinutes: int('PASSWORD_RESET_TTL_MINUTES', 30, 1, 24 * 60),
    publicUrl,
    notifications: readNotificationSettings(env, problems),
    payments: readPaymentSettings(str, problems),
  };
  if (problems.length) throw new ConfigError(problems);
  if (!config.jwtSecret) config.jwtSecret = localJwtSecret(dataDir);
  // Never the login token's key itself: a pass and a token can never be turned into each other.
  if (!config.passSecret) {
    config.passSecret = createHmac('sha256', config.jwtSecret)
      .update('mess/counter-pass/v1')
      .digest('base64url');
  }
  return config;
}

/** BACKUP_*: where the embedded engine's backups go, how many stay, and when the daily one runs. */
function readBackupSettings(
  env: NodeJS.ProcessEnv,
  dataDir: string,
  nodeEnv: NodeEnv,
  int: (name: string, fallback: number, min: number, max: number) => number,
  problems: string[],
): BackupSettings {
  const dir = env.BACKUP_DIR?.trim() || join(dataDir, 'backups');
  const keep = int('BACKUP_KEEP', 7, 1, 1000);
  const at = (env.BACKUP_DAILY_AT?.trim() || (nodeEnv === 'test' ? 'off' : '03:30')).toLowerCase();
  if (at === 'off') return { dir, keep, dailyAt: null };
  if (!/^([01]\d|2[0-3]):[0-5]\d$/.test(at)) {
    problems.push(`BACKUP_DAILY_AT must be a time HH:MM (mess time zone) or off (got "${at}")`);
    return { dir, keep, dailyAt: null };
  }
  return { dir, keep, dailyAt: at };
}

/** PAY_*: all three secrets or none (a half-configured gateway would take orders it could never confirm). */
function readPaymentSettings(
  str: (name: string) => string | undefined,
  problems: string[],
): PaymentGatewaySettings {
  const keyId = str('PAY_KEY_ID');
  const keySecret = str('PAY_KEY_SECRET');
  const webhookSecret = str('PAY_WEBHOOK_SECRET');
  const set = [keyId, keySecret, webhookSecret].filter(Boolean).length;
  if (set > 0 && set < 3)
    problems.push('PAY_KEY_ID, PAY_KEY_SECRET and PAY_WEBHOOK_SECRET are set together or not at all');
  const apiBaseUrl = (str('PAY_API_BASE_URL') ?? 'https://api.razorpay.com').replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s]+$/.test(apiBaseUrl))
    problems.push(`PAY_API_BASE_URL must be an http(s) URL (got "${apiBaseUrl}")`);
  return { keyId, keySecret, webhookSecret, apiBaseUrl };
}

/** Outside production: a random secret made once and kept beside the embedded data, so tokens survive restarts. */
function localJwtSecret(dataDir: string): string {
  if (dataDir === IN_MEMORY) return randomBytes(48).toString('base64url');
  const file = join(dataDir, 'jwt-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}
