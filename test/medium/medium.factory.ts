import { HttpException, type DynamicModule, type Type } from '@nestjs/common';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import { ModuleRef } from '@nestjs/core';
import { Test, type TestingModule } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import type { CurrentMember } from '../../src/common/auth/auth.decorators';
import { CacheInvalidationModule } from '../../src/common/cache/cache-invalidation.module';
import { DomainEventBus } from '../../src/common/events/domain-event-bus';
import type { EventMap, EventName } from '../../src/common/events/event-map';
import { RequestValidationPipe } from '../../src/common/http/request-validation.pipe';
import { Clock, FixedClock } from '../../src/common/time/clock';
import { FIRST_MESS_ID, inMess } from '../../src/common/tenancy/mess-scope';
import { IN_MEMORY, loadConfig, type AppConfig } from '../../src/config/app-config';
import { CoreModule } from '../../src/config/core.module';
import { Database, type Db } from '../../src/database/database';
import { DatabaseModule } from '../../src/database/database.module';
import { MessDirectory, MessesModule } from '../../src/modules/messes';
import { OutboxModule } from '../../src/modules/outbox';
import {
  attendance,
  type AttendanceStatus,
  type MarkSource,
} from '../../src/modules/attendance/attendance.schema';
import { expenses } from '../../src/modules/expenses/expenses.schema';
import { feedback } from '../../src/modules/feedback/feedback.schema';
import { meals } from '../../src/modules/meals/meals.schema';
import { SetupMessDto } from '../../src/modules/mess-config/dto/mess-config.dto';
import { MessConfigModule, MessConfigService } from '../../src/modules/mess-config';
import { EmailChannel, type EmailMessage } from '../../src/modules/notifications/channels/email.channel';
import { WhatsAppChannel } from '../../src/modules/notifications/channels/whatsapp.channel';
import { AdminBootstrapService } from '../../src/modules/users/admin-bootstrap.service';
import { insertApprovedMember, type MemberOverrides, type MemberRole } from '../support/members';
import { messSetup } from '../support/mess-setup';
import { loadPgliteTemplate } from '../support/templates';

/**
 * The medium tier: the real module(s) under test in a Nest testing module, on a fresh in-memory PGlite loaded from
 * the migrated template of global setup, with fakes only at the edges (the clock, mail, WhatsApp, the start-up
 * admin). A spec calls services, listeners and queries directly, with callers and rows the fixtures below make
 * without HTTP; what the HTTP API answers stays in test/e2e.
 *
 *   const ctx = await newMedium({ imports: [AttendanceModule] });
 *   const asha = await ctx.newMember('student');
 *   await ctx.get(AttendanceService).mark(asha.caller, await ctx.dto(MarkAttendanceDto, body));
 *
 * Every context has two messes (CONVENTIONS.md, "Tests per module with two messes"): A, the first mess, where the
 * spec acts by default, and B, set up with MESS_B_SETUP; `ctx.as(ctx.messes.b)` acts in B, so a spec shows that A's
 * work never reads or changes B's records (and B's jobs render B's configuration).
 */

type ModuleImport = Type<unknown> | DynamicModule;

export interface MediumOptions {
  /** The real modules under test; each brings the modules it imports (users, mess-config, …), real too. */
  imports: ModuleImport[];
  /** What the mess clock says (a FixedClock the spec may set or advance); the real time when left out. */
  now?: Date;
  /** Settings as environment variables (MESS_TIMEZONE, …), over the test defaults. */
  env?: Record<string, string>;
}

/** A fixture member: an approved row of `users`, and the caller a valid token of theirs would make. */
export interface MediumMember {
  id: string;
  email: string;
  fullName: string;
  role: MemberRole;
  /** The mess they belong to. */
  messId: string;
  /** What the auth guard hands the controllers for this member's token. */
  caller: CurrentMember;
}

/**
 * One of the two messes every context has: A, the first mess (FIRST_MESS_ID, unconfigured until a spec sets it up,
 * the default `messId`), and B, a second mess row the factory creates and sets up with MESS_B_SETUP by its own admin.
 */
export interface MediumMess {
  id: string;
  slug: string;
  /** B's admin (who set it up); A has none until a spec makes one. */
  admin?: MediumMember;
}

/**
 * Mess B's configuration (POST /auth/admin/setup's body, as B's admin sent it in B): a name, categories, meal times,
 * extras and a charge method that are none of them A's (neither the defaults nor messSetup's): whatever reads
 * B's configuration where it should have read A's (or the other way round) shows.
 */
export const MESS_B_SETUP = {
  messName: 'Girls Hostel 2 Mess',
  email: 'mess.b@college.edu',
  phone: '+91-8098765432',
  expenseCategories: ['Provisions', 'Fuel', 'Groceries'],
  mealTimes: [
    { name: 'Breakfast', startTime: '08:00', endTime: '10:00' },
    { name: 'Lunch', startTime: '13:00', endTime: '15:00' },
    { name: 'Supper', startTime: '20:00', endTime: '22:00' },
  ],
  chargeMethod: 'spec',
  extraItems: [
    { name: 'Egg', price: 12 },
    { name: 'Curd', price: 15.5 },
  ],
} as const;

/** What the controller would answer for a refused call: the HTTP status and body of the exception. */
export interface Refusal {
  status: number;
  body: unknown;
}

/** Mail never leaves the process: the messages are kept here. */
export class FakeEmailChannel {
  readonly enabled = true;
  readonly senderAddress = 'mess.office@test.local';
  readonly sent: EmailMessage[] = [];
  async send(message: EmailMessage): Promise<{ messageId: string }> {
    this.sent.push(message);
    return { messageId: `<${randomUUID()}@test.local>` };
  }
  onModuleDestroy(): void {}
}

/** WhatsApp never leaves the process: every message is accepted and delivered at once. */
export class FakeWhatsAppChannel {
  readonly enabled = true;
  readonly sent: { to: string | null | undefined; title: string; content: string; messageId: string }[] = [];
  async send(to: string | null | undefined, title: string, content: string) {
    const messageId = `SM${randomUUID().replace(/-/g, '')}`;
    this.sent.push({ to, title, content, messageId });
    return { messageId, status: 'delivered' as const };
  }
  async status() {
    return { status: 'delivered' as const };
  }
  async sentSince() {
    return [];
  }
}

export class MediumContext {
  readonly db: Db;
  /**
   * The mess the spec acts in: every method of a provider from `get` and every fixture runs in it, as a request or a
   * job would (nothing acts in a mess it did not enter). The first mess unless the spec sets another.
   */
  messId: string = FIRST_MESS_ID;

  /**
   * The two messes: `a` (the first mess) and `b` (set up by the factory with MESS_B_SETUP). A spec shows its module
   * keeps to its mess by acting in one (`ctx.as(ctx.messes.b)`) on the other's records.
   */
  messes!: { a: MediumMess; b: MediumMess };

  constructor(
    readonly module: TestingModule,
    readonly clock: FixedClock,
    readonly mail: FakeEmailChannel,
    readonly whatsapp: FakeWhatsAppChannel,
  ) {
    this.db = module.get(Database).db;
  }

  /**
   * A provider of any module in the graph (services, listeners, queries, repositories), whose methods run in the
   * spec's mess (`messId`, read at each call).
   */
  get<T>(type: Type<T> | string | symbol): T {
    const provider = this.module.get<T>(type, { strict: false });
    if (!provider || typeof provider !== 'object') return provider;
    return new Proxy(provider as T & object, {
      get: (target, property) => {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function' || property === 'constructor') return value;
        return (...args: unknown[]) =>
          inMess(this.messId, () => (value as (...a: unknown[]) => unknown).apply(target, args));
      },
    });
  }

  /**
   * This context acting in `mess`: a view whose `get()` providers, `dto()` and fixtures (members, menus, marks…)
   * run and write in that mess; the module, database, clock and fakes are the same.
   *
   *   const inB = ctx.as(ctx.messes.b);
   *   const member = await inB.newMember();              // a member of B
   *   await inB.get(ExpensesService).record(...);         // in B
   */
  as(mess: MediumMess | string): MediumContext {
    const view = Object.create(this) as MediumContext;
    view.messId = typeof mess === 'string' ? mess : mess.id;
    return view;
  }

  /** `work` acting in another mess (a second mess's member, a job run for it). */
  inMess<T>(messId: string, work: () => T): T {
    return inMess(messId, work);
  }

  /**
   * A body as the controller receives it: through the service's global validation pipe (whitelisting, the DTO's
   * transforms), so a service gets exactly what HTTP would hand it.
   */
  async dto<T extends object>(type: Type<T>, body: object): Promise<T> {
    const pipe = new RequestValidationPipe(this.module.get(ModuleRef));
    // In the spec's mess, as a request's pipe runs: a DTO checks against that mess's configuration.
    return (await inMess(this.messId, () => pipe.transform(body, { type: 'body', metatype: type }))) as T;
  }

  /** The status and body the controller would answer for a call the service refuses; fails if it was not refused. */
  async refusal(call: Promise<unknown>): Promise<Refusal> {
    try {
      await call;
    } catch (error) {
      if (error instanceof HttpException) return { status: error.getStatus(), body: error.getResponse() };
      throw error;
    }
    throw new Error('expected the call to be refused, and it succeeded');
  }

  /**
   * Every event of these names the module publishes from now on, in order, each with what a listener reading on
   * its own connection sees at that moment (`read(payload)`, e.g. the row the event names). `stop()` unsubscribes.
   */
  recordEvents<K extends EventName, R = undefined>(
    names: K[],
    read?: (payload: EventMap[K]) => Promise<R>,
  ): {
    received: { name: K; payload: EventMap[K]; read: Promise<R | undefined> }[];
    stop(): void;
  } {
    const emitter = this.get(EventEmitter2);
    const received: { name: K; payload: EventMap[K]; read: Promise<R | undefined> }[] = [];
    const listeners = names.map((name) => {
      const listener = (payload: EventMap[K]) =>
        received.push({ name, payload, read: read ? read(payload) : Promise.resolve(undefined) });
      emitter.on(name, listener);
      return [name, listener] as const;
    });
    return {
      received,
      stop: () => listeners.forEach(([name, listener]) => emitter.off(name, listener)),
    };
  }

  // ---- fixtures: rows inserted directly, as the service would have left them ----

  /**
   * An approved member of the context's mess (or of `overrides.messId`), inserted as registration and approval
   * leave one (the password hash computed once per process), with the caller their token would make. The
   * approval's member.changed is published, as the service does after its commit.
   */
  async newMember(
    role: MemberRole = 'student',
    overrides: Partial<MemberOverrides> = {},
  ): Promise<MediumMember> {
    const member = await insertApprovedMember(this.db, role, { messId: this.messId, ...overrides });
    this.get(DomainEventBus).publish('member.changed', {
      messId: member.messId,
      userId: member.id,
      change: 'approved',
      status: 'approved',
      role,
      dines: true,
      actorId: member.id,
    });
    const caller: CurrentMember = {
      id: member.id,
      email: member.email,
      fullName: member.fullName,
      role,
      status: 'approved',
      messId: member.messId,
      tokenId: randomUUID(),
      tokenExpiresAt: new Date(Date.now() + 7 * 24 * 3_600_000),
    };
    return {
      id: member.id,
      email: member.email,
      fullName: member.fullName,
      role,
      messId: member.messId,
      caller,
    };
  }

  /** The context's mess set up by this admin (messSetup's body with `overrides`), through the mess-config service. */
  async setUpMess(admin: MediumMember, overrides: Record<string, unknown> = {}): Promise<void> {
    await this.get(MessConfigService).setup(admin.id, await this.dto(SetupMessDto, messSetup(overrides)));
  }

  /** A published menu. */
  async newMenu(menu: {
    date: string;
    mealType: string;
    dishes: string[];
    createdBy: string;
    notes?: string;
  }): Promise<{ id: string }> {
    const [row] = await this.acting(() => this.db.insert(meals).values(menu).returning({ id: meals.id }));
    return row;
  }

  /** A mark of one member's meal slot; the member's own unless `markedBy` is someone else. */
  async newMark(mark: {
    userId: string;
    date: string;
    mealType: string;
    status: AttendanceStatus;
    markedBy?: string;
  }): Promise<{ id: string }> {
    const markedBy = mark.markedBy ?? mark.userId;
    const source: MarkSource = markedBy === mark.userId ? 'member' : 'mess';
    const [row] = await this.acting(() =>
      this.db
        .insert(attendance)
        .values({ ...mark, markedBy, source, markedAt: this.clock.now() })
        .returning({ id: attendance.id }),
    );
    return row;
  }

  /** An expense of `amount` rupees (stored in paise, as the service stores it). */
  async newExpense(expense: {
    category: string;
    amount: number;
    date: string;
    recordedBy: string;
    description?: string;
  }): Promise<{ id: string }> {
    const { amount, ...rest } = expense;
    const [row] = await this.acting(() =>
      this.db
        .insert(expenses)
        .values({ ...rest, amountPaise: Math.round(amount * 100) })
        .returning({ id: expenses.id }),
    );
    return row;
  }

  /** A member's rating of one meal. */
  async newFeedback(given: {
    userId: string;
    date: string;
    mealType: string;
    rating: number;
    comment?: string;
  }): Promise<{ id: string }> {
    const [row] = await this.acting(() =>
      this.db.insert(feedback).values(given).returning({ id: feedback.id }),
    );
    return row;
  }

  /** A statement (a query builder, awaited here) run in the spec's mess. */
  private acting<T>(statement: () => PromiseLike<T>): Promise<T> {
    return inMess(this.messId, async () => statement());
  }

  async close(): Promise<void> {
    await this.module.close();
  }
}

/** Builds the module graph on its own fresh database and starts it (lifecycle hooks and event listeners included). */
export async function newMedium(options: MediumOptions): Promise<MediumContext> {
  const base = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: IN_MEMORY,
    JWT_SECRET: 'medium-secret-that-is-long-enough-for-hs256-0123',
    ...options.env,
  });
  const template = await loadPgliteTemplate();
  const config: AppConfig = template ? { ...base, embeddedTemplate: template } : base;
  const clock = new FixedClock(options.now ?? new Date());
  const mail = new FakeEmailChannel();
  const whatsapp = new FakeWhatsAppChannel();
  const module = await Test.createTestingModule({
    imports: [
      CoreModule.register(config),
      DatabaseModule,
      CacheInvalidationModule,
      MessesModule,
      // The outbox's relay: durable events (receipts, leave decisions, …) are written with their change.
      OutboxModule,
      // Sets up mess B (and A, for a spec that asks); most modules under test import it anyway.
      MessConfigModule,
      EventEmitterModule.forRoot(),
      ...options.imports,
    ],
  })
    .overrideProvider(Clock)
    .useValue(clock)
    .overrideProvider(EmailChannel)
    .useValue(mail)
    .overrideProvider(WhatsAppChannel)
    .useValue(whatsapp)
    // No start-up admin (and no bcrypt hash at start): a spec that needs an admin makes one with newMember('admin').
    .overrideProvider(AdminBootstrapService)
    .useValue({})
    .compile();
  try {
    await module.init();
  } catch (error) {
    await module.close().catch(() => undefined);
    throw error;
  }
  const ctx = new MediumContext(module, clock, mail, whatsapp);
  try {
    ctx.messes = { a: { id: FIRST_MESS_ID, slug: 'main' }, b: await createMessB(ctx) };
  } catch (error) {
    await module.close().catch(() => undefined);
    throw error;
  }
  return ctx;
}

/**
 * Mess B as a deployment gets a second mess: its row in `messes` (through the messes module's MessDirectory, as
 * POST /messes inserts it), an admin of its own, who sets it up in B through the mess-config service (MESS_B_SETUP).
 */
async function createMessB(ctx: MediumContext): Promise<MediumMess> {
  const row = await ctx.module
    .get(MessDirectory)
    .create(ctx.db, { slug: 'mess-b', capacity: null, upi: null });
  const inB = ctx.as(row.id);
  const admin = await inB.newMember('admin', { fullName: 'Mess B Admin' });
  await inB.get(MessConfigService).setup(admin.id, await inB.dto(SetupMessDto, MESS_B_SETUP));
  return { id: row.id, slug: row.slug, admin };
}
