import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { eq } from 'drizzle-orm';
import { createApp } from '../../src/app';
import { sendWhileUnavailable, whileUnavailable } from './unavailable';
import { DomainEventBus } from '../../src/common/events/domain-event-bus';
import type { MemberEvent } from '../../src/common/events/event-map';
import { IN_MEMORY, loadConfig } from '../../src/config/app-config';
import { Database } from '../../src/database/database';
// The table itself, for the tests' own setup (the users module exports no table).
import { users } from '../../src/modules/users/users.schema';
import { databaseEnv, freshDatabase, TestDatabase } from './database';
import { insertApprovedMember, memberToken, type MemberOverrides, type MemberRole } from './members';
import { loadPgliteTemplate } from './templates';

/**
 * Starts still running (or late apps still closing). The file's environment must not be torn down under one: Nest
 * loads @fastify/static lazily while the app starts, and an import after teardown makes Nest call process.exit(1),
 * which ended the whole Jest run. So every file that uses TestApp waits for them after its own tests.
 */
const startsInFlight = new Set<Promise<unknown>>();
function track(work: Promise<unknown>): void {
  const settled: Promise<void> = work.then(
    () => void startsInFlight.delete(settled),
    () => void startsInFlight.delete(settled),
  );
  startsInFlight.add(settled);
}
afterAll(async () => {
  while (startsInFlight.size) await Promise.allSettled([...startsInFlight]);
});

/** The template dump, opened once per test file. */
let templateDump: Promise<Blob | undefined> | undefined;
const template = (): Promise<Blob | undefined> => (templateDump ??= loadPgliteTemplate());

export const ADMIN = { email: 'admin@test.local', password: 'admin-password-1' };
export { messSetup } from './mess-setup';

export const TEST_JWT_SECRET = 'test-secret-that-is-long-enough-for-hs256-0123456789';

export interface Response<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | undefined>;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The whole service on a fresh database, driven over HTTP through Fastify's inject. */
export class TestApp {
  private constructor(
    readonly app: NestFastifyApplication,
    private readonly database: TestDatabase,
    /** The secret the app signs its tokens with (TEST_JWT_SECRET unless the file set JWT_SECRET). */
    private readonly jwtSecret: string,
  ) {}

  /**
   * How long `start` may take before it fails its test file with a clear message. Below the e2e hook timeout (see
   * jest.config.js), so this message rather than Jest's generic one is what a busy machine shows.
   */
  static readonly START_DEADLINE_MS = 100_000;

  /**
   * Starts the app; on a machine too busy to do it within START_DEADLINE_MS, rejects with a message saying so (the
   * file's tests then fail, the rest of the run goes on) and closes the app if it still comes up later.
   */
  static async start(env: Record<string, string> = {}, database?: TestDatabase): Promise<TestApp> {
    const starting = TestApp.startNow(env, database);
    track(starting);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        track(starting.then((late) => late.close()));
        reject(
          new Error(
            `TestApp.start(): the app did not start within ${TestApp.START_DEADLINE_MS / 1000} s ` +
              '(is the machine overloaded?); this file fails, the other files still run',
          ),
        );
      }, TestApp.START_DEADLINE_MS);
    });
    try {
      return await Promise.race([starting, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  private static async startNow(env: Record<string, string>, database?: TestDatabase): Promise<TestApp> {
    const db = database ?? (await freshDatabase());
    const base = loadConfig({
      NODE_ENV: 'test',
      DATA_DIR: 'memory://',
      JWT_SECRET: TEST_JWT_SECRET,
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      // Generous limits so suites that log in often are not throttled; the rate-limit tests set their own.
      LOGIN_RATE_LIMIT_PER_MINUTE: '10000',
      LOGIN_RATE_LIMIT_PER_EMAIL: '10000',
      RATE_LIMIT_PER_MINUTE: '100000',
      // Suites register and log in many members at once on a busy machine: no 503 from the hashing queue.
      BCRYPT_QUEUE_TIMEOUT_MS: '60000',
      // Likewise the embedded engine's admission: suites fire bursts of 50 requests while another suite shares the
      // two cores, and a functional test must not meet the overload 503 (admission.spec.ts and `npm run load
      // -- --engine embedded` exercise it).
      EMBEDDED_QUEUE_TIMEOUT_MS: '30000',
      ...databaseEnv(db),
      ...env,
    });
    // An in-memory engine starts from the migrated template of global setup (a server database is copied from one).
    const config =
      base.dataDir === IN_MEMORY && !base.databaseUrl
        ? { ...base, embeddedTemplate: await template() }
        : base;
    const app = await createApp(config);
    try {
      await app.init();
      await app.getHttpAdapter().getInstance().ready();
    } catch (error) {
      await app.close().catch(() => undefined);
      await db.drop().catch(() => undefined);
      throw error;
    }
    return new TestApp(app, db, config.jwtSecret);
  }

  async request<T = any>(method: string, url: string, options: RequestOptions = {}): Promise<Response<T>> {
    // Sent again while the database is briefly away, under TEST_RETRY_UNAVAILABLE (test/support/unavailable.ts).
    return sendWhileUnavailable(() => this.requestOnce<T>(method, url, options));
  }

  private async requestOnce<T>(method: string, url: string, options: RequestOptions): Promise<Response<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const response = await this.app.inject({
      method: method as 'GET',
      url: url.startsWith('/api') ? url : `/api${url}`,
      headers,
      ...(options.body !== undefined ? { payload: options.body as object } : {}),
    });
    let body: unknown = response.body;
    if ((response.headers['content-type'] ?? '').toString().includes('json') && response.body)
      body = response.json();
    return { status: response.statusCode, body: body as T, headers: response.headers as Response['headers'] };
  }

  get = <T = any>(url: string, options?: RequestOptions) => this.request<T>('GET', url, options);
  post = <T = any>(url: string, body?: unknown, options?: RequestOptions) =>
    this.request<T>('POST', url, { ...options, body });
  put = <T = any>(url: string, body?: unknown, options?: RequestOptions) =>
    this.request<T>('PUT', url, { ...options, body });
  patch = <T = any>(url: string, body?: unknown, options?: RequestOptions) =>
    this.request<T>('PATCH', url, { ...options, body });
  delete = <T = any>(url: string, options?: RequestOptions) => this.request<T>('DELETE', url, options);

  async login(email: string, password: string): Promise<string> {
    const res = await this.post('/auth/login', { email, password });
    if (res.status !== 200)
      throw new Error(`login of ${email} failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.token as string;
  }

  private cachedAdminToken?: Promise<string>;

  /**
   * A token of the bootstrap admin, made once per app: signed as the service signs one (see member()), not logged in
   * (a bcrypt comparison per file). The files about logging in do it over HTTP.
   */
  adminToken(): Promise<string> {
    this.cachedAdminToken ??= this.admin().then((admin) => memberToken(this.jwtSecret, admin));
    this.cachedAdminToken.catch(() => (this.cachedAdminToken = undefined));
    return this.cachedAdminToken;
  }

  /**
   * An approved member with this role and their token, as registration, the admin's approval (and role change) and
   * a login would leave them, made without them: inserted straight in the database with a password hash computed
   * once per process (test/support/members.ts), and a token signed as the service signs one. The approval's
   * MemberChanged event is published as the service does after its commit, so cached figures that count members
   * are dropped. The files about registration, approval and login do those over HTTP.
   */
  async member(
    role: MemberRole = 'student',
    overrides: Partial<MemberOverrides> = {},
  ): Promise<{ id: string; token: string; email: string; password: string; fullName: string }> {
    const member = await whileUnavailable(() => insertApprovedMember(this.app.get(Database).db, role, overrides));
    const event: MemberEvent = {
      userId: member.id,
      change: 'approved',
      status: 'approved',
      role,
      dines: true,
      actorId: (await this.admin()).id,
    };
    this.app.get(DomainEventBus).publish('member.changed', { ...event, messId: member.messId });
    const { id, email, password, fullName } = member;
    return { id, token: memberToken(this.jwtSecret, member), email, password, fullName };
  }

  private cachedAdmin?: Promise<{ id: string; tokenVersion: number }>;

  /** The bootstrap admin's id and token version, read once per app. */
  private admin(): Promise<{ id: string; tokenVersion: number }> {
    this.cachedAdmin ??= whileUnavailable(() =>
      this.app
        .get(Database)
        .db.select({ id: users.id, tokenVersion: users.tokenVersion })
        .from(users)
        .where(eq(users.email, ADMIN.email))
        .then(([row]) => row),
    );
    // A failure is not kept: the next call reads again.
    this.cachedAdmin.catch(() => (this.cachedAdmin = undefined));
    return this.cachedAdmin;
  }

  /** The app's database on the PostgreSQL server; undefined on the embedded engine. */
  get databaseUrl(): string | undefined {
    return this.database.url;
  }

  async close(): Promise<void> {
    await this.app.close();
    await this.database.drop();
  }
}
