import {
  CallHandler,
  ExecutionContext,
  HttpException,
  HttpStatus,
  Injectable,
  NestInterceptor,
  OnModuleDestroy,
  SetMetadata,
  UseInterceptors,
  applyDecorators,
} from '@nestjs/common';
import {
  ThrottlerGuard,
  type ThrottlerModuleOptions,
  ThrottlerStorage,
  ThrottlerLimitDetail,
  InjectThrottlerOptions,
  InjectThrottlerStorage,
} from '@nestjs/throttler';
import type Redis from 'ioredis';
import type * as IoRedis from 'ioredis';
import { catchError, from, mergeMap, Observable, throwError } from 'rxjs';
import { AppConfig } from '../../config/app-config';
import { ApiError } from '../errors/api-error';
import { RateLimitStats } from '../stats/service-stats';
import { optionalPackage } from '../runtime/optional-package';
import { RouteMetadata } from './route-metadata';
import { normalizeEmail } from '../identity/email';
import { failureReason, Outages } from '../outages/outages';
import { type CountingStorage, type CredentialAttempt, CredentialThrottle } from './credential-throttle';
import { setTimeout as sleep } from 'node:timers/promises';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

const LOGIN_THROTTLE = 'mess:login-throttle';

/** A login counts its failures (per address, and per email and address); another credential route every request. */
type CredentialRoute = 'login' | 'credential';

/**
 * Routes that take credentials: also limited on their failures per address and per email, on top of the general
 * limit; successes are not counted (a campus behind one address logs in hundreds of members a minute). The
 * interceptor that counts failed attempts is applied here, on these routes alone, rather than wrapping every request
 * of the service.
 */
export const LoginThrottle = () =>
  applyDecorators(
    SetMetadata(LOGIN_THROTTLE, 'login' satisfies CredentialRoute),
    UseInterceptors(LoginFailureInterceptor),
  );

/**
 * Routes that take an email but are not a login (a password reset's forgot and reset): limited per IP on every
 * request, and refused while the source waits, but their answers are not counted as a login's: a forgot answering
 * 200 must not clear a password guesser's failures for the email it names.
 */
export const CredentialRouteThrottle = () => SetMetadata(LOGIN_THROTTLE, 'credential' satisfies CredentialRoute);

const credentialRoute = (context: ExecutionContext): CredentialRoute | undefined =>
  Reflect.getMetadata(LOGIN_THROTTLE, context.getHandler()) as CredentialRoute | undefined;

const isLoginRoute = (context: ExecutionContext): boolean => credentialRoute(context) !== undefined;

export function throttlerOptions(config: AppConfig, storage: ThrottlerStorage): ThrottlerModuleOptions {
  return {
    storage,
    throttlers: [
      { name: 'default', ttl: 60_000, limit: config.rateLimit.perMinute },
      {
        // A login's per-address limit counts failures only (CredentialThrottle), not here.
        name: 'login-ip',
        ttl: 60_000,
        limit: config.rateLimit.loginPerMinutePerIp,
        skipIf: (context) => credentialRoute(context) !== 'credential',
      },
    ],
  };
}

interface LoginRequest {
  body?: { email?: unknown };
  ip: string;
}

/** The attempt's email as the accounts store it (trimmed, lower case), and its source address. */
const attemptOf = (req: LoginRequest): CredentialAttempt => ({
  email: typeof req.body?.email === 'string' ? normalizeEmail(req.body.email) : undefined,
  source: req.ip,
});

const countingStorage = (storage: ThrottlerStorage): CountingStorage | undefined => {
  const candidate = storage as Partial<CountingStorage>;
  return typeof candidate.peek === 'function' && typeof candidate.reset === 'function'
    ? (storage as CountingStorage)
    : undefined;
};

/** Unknown email (404) or wrong password/ID token (401): a guess. Pending, rejected, 400 and success are not. */
const isFailedAttempt = (error: unknown): boolean =>
  error instanceof HttpException &&
  [HttpStatus.UNAUTHORIZED, HttpStatus.NOT_FOUND].includes(error.getStatus());

/** ThrottlerGuard that counts what it saw and answers 429 in the service's error shape with Retry-After. */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  private credentials?: CredentialThrottle;

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: RouteMetadata,
    private readonly stats: RateLimitStats,
    private readonly config: AppConfig,
  ) {
    super(options, storage, reflector);
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    this.stats.totalRequests += 1;
    const allowed = await super.canActivate(context);
    if (allowed && isLoginRoute(context)) await this.refuseWhileWaiting(context);
    return allowed;
  }

  /** A source that failed too often for this email, or an address too often this minute, waits (CredentialThrottle). */
  private async refuseWhileWaiting(context: ExecutionContext): Promise<void> {
    const storage = countingStorage(this.storageService);
    if (!storage) return;
    this.credentials ??= new CredentialThrottle(storage, this.config.rateLimit);
    const attempt = attemptOf(context.switchToHttp().getRequest<LoginRequest>());
    const wait = await this.credentials.waitSeconds(attempt);
    if (wait > 0) {
      this.stats.blockedRequests += 1;
      throw new RateLimitedError(wait);
    }
  }

  /**
   * The throttler's own key (route, throttler, client) without the SHA-256 it hashes it with: a hash per request
   * and throttler bought nothing, since the key stays in this process's bounded map or, prefixed, in Redis.
   */
  protected override generateKey(context: ExecutionContext, suffix: string, name: string): string {
    return `${context.getClass().name}-${context.getHandler().name}-${name}-${suffix}`;
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

/** Tells the CredentialThrottle of each attempt's outcome: a failure is counted (and maybe answered late). */
@Injectable()
export class LoginFailureInterceptor implements NestInterceptor {
  private readonly throttle: CredentialThrottle | undefined;

  constructor(@InjectThrottlerStorage() storage: ThrottlerStorage, config: AppConfig) {
    const counting = countingStorage(storage);
    this.throttle = counting && new CredentialThrottle(counting, config.rateLimit);
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const throttle = this.throttle;
    if (!throttle) return next.handle();
    const attempt = attemptOf(context.switchToHttp().getRequest<LoginRequest>());
    return next.handle().pipe(
      mergeMap((answer) => from(throttle.succeeded(attempt).then(() => answer))),
      catchError((error: unknown) => {
        if (!isFailedAttempt(error)) return throwError(() => error);
        const recorded = throttle.failed(attempt).then((holdMs) => (holdMs > 0 ? sleep(holdMs) : undefined));
        return from(recorded).pipe(mergeMap(() => throwError(() => error)));
      }),
    );
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
export class MemoryRateLimitStorage implements CountingStorage, OnModuleDestroy {
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

  reset(key: string): Promise<void> {
    this.windows.delete(key);
    return Promise.resolve();
  }

  peek(key: string): Promise<{ hits: number; timeToExpire: number }> {
    const window = this.windows.get(key);
    const now = Date.now();
    if (!window || window.expiresAt <= now) return Promise.resolve({ hits: 0, timeToExpire: 0 });
    return Promise.resolve({ hits: window.hits, timeToExpire: Math.ceil((window.expiresAt - now) / 1000) });
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
export class RedisRateLimitStorage implements CountingStorage, OnModuleDestroy {
  private readonly redis: Redis;

  constructor(url: string, outages: Outages) {
    const { Redis } = optionalPackage<typeof IoRedis>('ioredis');
    this.redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false });
    this.redis.on('error', (error: Error) => outages.down('Redis', failureReason(error), 'rate limits'));
    this.redis.on('ready', () => outages.up('Redis'));
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

  async peek(key: string): Promise<{ hits: number; timeToExpire: number }> {
    try {
      const [hits, pttl] = await Promise.all([
        this.redis.get(`mess:rl:${key}`),
        this.redis.pttl(`mess:rl:${key}`),
      ]);
      return { hits: Number(hits ?? 0), timeToExpire: Math.max(1, Math.ceil(pttl / 1000)) };
    } catch {
      return { hits: 0, timeToExpire: 0 };
    }
  }

  async reset(key: string): Promise<void> {
    await this.redis.del(`mess:rl:${key}`).catch(() => undefined);
  }

  async onModuleDestroy(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}

export function rateLimitStorage(config: AppConfig, outages: Outages): ThrottlerStorage {
  return config.redisUrl ? new RedisRateLimitStorage(config.redisUrl, outages) : new MemoryRateLimitStorage();
}
