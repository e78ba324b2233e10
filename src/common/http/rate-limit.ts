import {
  ExecutionContext,
  HttpStatus,
  Injectable,
  Logger,
  OnModuleDestroy,
  SetMetadata,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  ThrottlerGuard,
  type ThrottlerModuleOptions,
  ThrottlerStorage,
  ThrottlerLimitDetail,
  InjectThrottlerOptions,
  InjectThrottlerStorage,
} from '@nestjs/throttler';
import Redis from 'ioredis';
import { AppConfig } from '../../config/app-config';
import { ApiError } from '../errors/api-error';
import { RateLimitStats } from '../stats/service-stats';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

const LOGIN_THROTTLE = 'mess:login-throttle';

/** Routes that take credentials: also limited per IP and per email, on top of the general limit. */
export const LoginThrottle = () => SetMetadata(LOGIN_THROTTLE, true);

const isLoginRoute = (context: ExecutionContext): boolean =>
  Reflect.getMetadata(LOGIN_THROTTLE, context.getHandler()) === true;

export function throttlerOptions(config: AppConfig, storage: ThrottlerStorage): ThrottlerModuleOptions {
  return {
    storage,
    throttlers: [
      { name: 'default', ttl: 60_000, limit: config.rateLimit.perMinute },
      {
        name: 'login-ip',
        ttl: 60_000,
        limit: config.rateLimit.loginPerMinutePerIp,
        skipIf: (context) => !isLoginRoute(context),
      },
      {
        name: 'login-email',
        ttl: 15 * 60_000,
        limit: config.rateLimit.loginPer15MinPerEmail,
        skipIf: (context) => !isLoginRoute(context),
        getTracker: (req: { body?: { email?: unknown }; ip?: string }) =>
          typeof req.body?.email === 'string'
            ? `email:${req.body.email.trim().toLowerCase()}`
            : `ip:${req.ip}`,
      },
    ],
  };
}

/** ThrottlerGuard that counts what it saw and answers 429 in the service's error shape with Retry-After. */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly stats: RateLimitStats,
  ) {
    super(options, storage, reflector);
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    this.stats.totalRequests += 1;
    return super.canActivate(context);
  }

  protected override async throwThrottlingException(
    _context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    this.stats.blockedRequests += 1;
    const retryAfter = Math.max(1, Math.ceil(detail.timeToBlockExpire || detail.timeToExpire));
    throw new RateLimitedError(retryAfter);
  }
}

export class RateLimitedError extends ApiError {
  constructor(readonly retryAfter: number) {
    super(HttpStatus.TOO_MANY_REQUESTS, 'Too many requests; try again later');
  }
  override getResponse(): object {
    return { ...(super.getResponse() as object), retryAfter: this.retryAfter };
  }
}

interface Window {
  hits: number;
  expiresAt: number;
}

/**
 * Fixed-window counters in this process. Unlike the throttler's default storage it is bounded: expired windows
 * are swept every minute and, past `maxKeys`, the oldest windows are dropped first.
 */
export class MemoryRateLimitStorage implements ThrottlerStorage, OnModuleDestroy {
  private readonly windows = new Map<string, Window>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly maxKeys = 100_000) {
    this.sweeper = setInterval(() => this.sweep(Date.now()), 60_000);
    this.sweeper.unref();
  }

  increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || window.expiresAt <= now) {
      this.windows.delete(key);
      window = { hits: 0, expiresAt: now + ttl };
      this.windows.set(key, window);
      if (this.windows.size > this.maxKeys) this.windows.delete(this.windows.keys().next().value!);
    }
    window.hits += 1;
    const timeToExpire = Math.ceil((window.expiresAt - now) / 1000);
    const isBlocked = window.hits > limit;
    return Promise.resolve({
      totalHits: window.hits,
      timeToExpire,
      isBlocked,
      timeToBlockExpire: isBlocked ? timeToExpire : 0,
    });
  }

  get size(): number {
    return this.windows.size;
  }

  sweep(now: number): void {
    for (const [key, window] of this.windows) if (window.expiresAt <= now) this.windows.delete(key);
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
  }
}

const INCREMENT_SCRIPT = `
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
return {hits, ttl}`;

/** Shared counters for several replicas; a Redis failure lets requests through rather than failing them. */
export class RedisRateLimitStorage implements ThrottlerStorage, OnModuleDestroy {
  private readonly logger = new Logger('RateLimit');
  private readonly redis: Redis;

  constructor(url: string) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false });
    this.redis.on('error', (error: Error) =>
      this.logger.warn({ reason: error.message }, 'Redis unavailable for rate limits'),
    );
  }

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    try {
      const [hits, pttl] = (await this.redis.eval(INCREMENT_SCRIPT, 1, `mess:rl:${key}`, ttl)) as [
        number,
        number,
      ];
      const timeToExpire = Math.max(1, Math.ceil(pttl / 1000));
      const isBlocked = hits > limit;
      return { totalHits: hits, timeToExpire, isBlocked, timeToBlockExpire: isBlocked ? timeToExpire : 0 };
    } catch {
      return { totalHits: 0, timeToExpire: 0, isBlocked: false, timeToBlockExpire: 0 };
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}

export function rateLimitStorage(config: AppConfig): ThrottlerStorage {
  return config.redisUrl ? new RedisRateLimitStorage(config.redisUrl) : new MemoryRateLimitStorage();
}
