import { Clock } from '../../common/time/clock';
import { localParts } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import { Injectable } from '@nestjs/common';
import { currentMessId } from '../../common/tenancy/mess-scope';
import { CacheInvalidation } from '../../common/cache/cache-invalidation';
import { type CurrentMember } from '../../common/auth/auth.decorators';
import { can } from '../../common/auth/permissions';
import { badRequest, conflict, type FieldError, GuardError, notFound } from '../../common/errors/api-error';
import { MessConfigDto } from './dto/mess-config.dto';
import { MESS_ALREADY_SET_UP, MESS_NOT_SET_UP } from './mess-config.errors';
import { MessConfigRepository } from './mess-config.repository';
import {
  ChargeMethod,
  ExtraItem,
  LeavePolicy,
  MarkingWindow,
  MealTime,
  MessConfigRow,
} from './mess-config.schema';
import {
  auditSnapshot,
  type DailyRateSettings,
  dailySettingsOf,
  DEFAULT_LEAVE_POLICY,
  DEFAULT_MESS_CONFIG,
  toDto,
  toItemDto,
  validateSemantics,
  values,
} from './mess-config.values';
import { AuditTrail } from '../audit-trail';
import { PrivacyNotice, type PrivacyNoticeDto } from '../privacy-notice';
import { MessDirectory, type MessRow } from '../messes';
import { type DbOrTx } from '../../database/database';
import { MessFieldsDto } from './dto/messes.dto';

/**
 * Our own changes are visible at once, other replicas' when their invalidation message arrives (milliseconds);
 * this only bounds staleness when a message was lost.
 */
const CACHE_MS = 5_000;
const CACHE_TOPIC = 'mess-config';

export interface MessSettings {
  messName: string;
  expenseCategories: string[];
  mealTimes: MealTime[];
  monthlyBudget: number | null;
  chargeMethod: ChargeMethod;
  leavePolicy: LeavePolicy;
  /** The extras catalogue, prices in paise. */
  extraItems: ExtraItem[];
  /** Undefined: members mark any date. */
  markingWindow?: MarkingWindow;
}

/** The mess's configuration: read through a short cache dropped on every replica at a change, set up and replaced. */
@Injectable()
export class MessConfigService {
  /** Per mess: each mess has its own configuration. */
  private readonly cached = new Map<string, { row: MessConfigRow | undefined; at: number }>();
  /** Bumped by every invalidation: a read that began before one is not kept. */
  private generation = 0;

  constructor(
    private readonly repository: MessConfigRepository,
    private readonly audit: AuditTrail,
    private readonly replicas: CacheInvalidation,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly directory: MessDirectory,
    private readonly privacyNotice: PrivacyNotice,
  ) {
    replicas.subscribe(CACHE_TOPIC, () => this.drop());
  }

  async read(): Promise<MessConfigDto> {
    const [row, mess] = await Promise.all([this.row(), this.directory.find(currentMessId())]);
    const base: MessConfigDto = row
      ? toDto(row)
      : {
          ...DEFAULT_MESS_CONFIG,
          extraItems: DEFAULT_MESS_CONFIG.extraItems.map(toItemDto),
          configured: false,
        };
    return mess ? { ...base, ...messFields(mess) } : base;
  }

  /**
   * The configuration as a client reads it, with the mess's time zone and its date now: a frontend that computed
   * "today" in UTC was wrong every night from 00:00 to 05:30 IST. Computed per answer, never cached.
   */
  async readForClients(): Promise<MessConfigDto & { timezone: string; today: string }> {
    const timezone = this.config.messTimezone;
    return { ...(await this.read()), timezone, today: localParts(this.clock.now(), timezone).date };
  }

  /** The settings other modules validate against: stored ones, or the defaults. */
  async settings(): Promise<MessSettings> {
    const row = await this.row();
    if (!row) return DEFAULT_MESS_CONFIG;
    return {
      messName: row.messName,
      expenseCategories: row.expenseCategories,
      mealTimes: row.mealTimes,
      monthlyBudget: row.monthlyBudget === null ? null : Number(row.monthlyBudget),
      chargeMethod: row.chargeMethod,
      leavePolicy: row.leavePolicy ?? DEFAULT_LEAVE_POLICY,
      extraItems: row.extraItems,
      ...(row.markingWindow ? { markingWindow: row.markingWindow } : {}),
    };
  }

  /** Extension 2.3: the daily rate, its rebate bands, the term's cap and the terms (the defaults when unset). */
  async dailySettings(): Promise<DailyRateSettings> {
    return dailySettingsOf(await this.row());
  }

  /** The catalogue item named `name` ignoring case (its own spelling and price), or 400 naming `field`. */
  async extraItem(name: string, field = 'item'): Promise<ExtraItem> {
    const { extraItems } = await this.settings();
    const key = name.toLowerCase();
    const item = extraItems.find((i) => i.name.toLowerCase() === key);
    if (!item) {
      throw badRequest('Validation failed', [
        {
          field,
          message: extraItems.length
            ? `${field} must be one of ${extraItems.map((i) => i.name).join(', ')}`
            : `${field}: the mess has no extras priced (extraItems in the mess configuration)`,
        },
      ]);
    }
    return item;
  }

  /** The configured meal time named `mealType`, or undefined. */
  async mealTime(mealType: string): Promise<MealTime | undefined> {
    return (await this.settings()).mealTimes.find((m) => m.name === mealType);
  }

  /** 400 unless `mealType` names a configured meal time (exact, case-sensitive); returns that meal time. */
  async assertMealType(mealType: string, field = 'mealType'): Promise<MealTime> {
    const { mealTimes } = await this.settings();
    const meal = mealTimes.find((m) => m.name === mealType);
    if (!meal) {
      throw badRequest('Validation failed', [
        { field, message: `${field} must be one of ${mealTimes.map((m) => m.name).join(', ')}` },
      ]);
    }
    return meal;
  }

  /** 400 unless `category` is a configured expense category. */
  async assertExpenseCategory(category: string, field = 'category'): Promise<void> {
    const problem = await this.expenseCategoryProblem(category, field);
    if (problem) throw badRequest('Validation failed', [problem]);
  }

  /** What is wrong with `category` as an expense's (not one of the configured ones, exact spelling), if anything. */
  async expenseCategoryProblem(category: unknown, field = 'category'): Promise<FieldError | undefined> {
    const { expenseCategories } = await this.settings();
    if (typeof category === 'string' && expenseCategories.includes(category)) return undefined;
    return { field, message: `${field} must be one of ${expenseCategories.join(', ')}` };
  }

  async setup(adminId: string, body: MessFieldsDto): Promise<MessConfigDto> {
    validateSemantics(body);
    if (await this.repository.find()) throw conflict(MESS_ALREADY_SET_UP);
    try {
      await this.repository.transaction(async (tx) => {
        await this.saveMessFields(currentMessId(), body, tx);
        return this.insertConfig(tx, adminId, body);
      });
      this.forget();
      return await this.read();
    } finally {
      this.forget();
    }
  }

  async replace(adminId: string, body: MessFieldsDto): Promise<MessConfigDto> {
    validateSemantics(body);
    return this.replaceWith(adminId, () => body);
  }

  /**
   * `PATCH /auth/admin/config`: what is sent changes, what is left out stays (null removes the budget, the marking
   * window, the capacity or the UPI address). Merged with the configuration as it is under the row's lock, so two
   * partial updates at once both take effect.
   */
  async patch(
    member: Pick<CurrentMember, 'id' | 'role' | 'messId'>,
    body: Record<string, unknown>,
  ): Promise<MessConfigDto> {
    // The privacy notice is the deployment's, not the mess's (extension 2.3): set apart, never by a PUT.
    const { privacyNotice, ...patch } = body;
    if (privacyNotice !== undefined) {
      if (!can(member, 'privacy.manage')) throw new GuardError(403, 'Forbidden');
      await this.privacyNotice.set(privacyNotice as PrivacyNoticeDto | null, member.id);
      if (!Object.values(patch).some((value) => value !== undefined)) return this.read();
    }
    const changes = Object.entries(patch).filter(
      ([key, value]) => value !== undefined && !READ_ONLY.has(key),
    );
    // The route lets in who may set the UPI id (a treasurer); every other field is the configurer's (an admin).
    if (changes.some(([key]) => key !== 'upi') && !can(member, 'mess.configure'))
      throw new GuardError(403, 'Forbidden');
    const nulls = changes.filter(([key, value]) => value === null && !REMOVABLE.has(key)).map(([key]) => key);
    if (nulls.length)
      throw badRequest(
        'Validation failed',
        nulls.map((field) => ({ field, message: `${field} must not be null; leave it out to keep it` })),
      );
    return this.replaceWith(member.id, (before) => {
      const current = toDto(before);
      const merged: Record<string, unknown> = {
        messName: current.messName,
        description: current.description,
        email: current.email,
        phone: current.phone,
        expenseCategories: current.expenseCategories,
        mealTimes: current.mealTimes,
        chargeMethod: current.chargeMethod,
        ...(current.dailyRate !== undefined ? { dailyRate: current.dailyRate } : {}),
        rebateBands: current.rebateBands,
        rebateDaysPerTerm: current.rebateDaysPerTerm,
        termStartMonths: current.termStartMonths,
        leavePolicy: current.leavePolicy,
        extraItems: current.extraItems,
        ...(current.monthlyBudget !== null ? { monthlyBudget: current.monthlyBudget } : {}),
        ...(current.markingWindow ? { markingWindow: current.markingWindow } : {}),
      };
      for (const [key, value] of changes) {
        if (value === null && (key === 'monthlyBudget' || key === 'markingWindow' || key === 'dailyRate'))
          delete merged[key];
        else merged[key] = value;
      }
      const body = merged as unknown as MessFieldsDto;
      validateSemantics(body);
      return body;
    });
  }

  private async replaceWith(
    adminId: string,
    make: (before: MessConfigRow) => MessFieldsDto,
  ): Promise<MessConfigDto> {
    try {
      await this.repository.transaction(async (tx) => {
        const before = await this.repository.find(tx, { lock: true });
        if (!before) throw notFound(MESS_NOT_SET_UP);
        const body = make(before);
        await this.saveMessFields(currentMessId(), body, tx);
        const after = (await this.repository.update(values(body), tx))!;
        await this.audit.record(tx, {
          actorId: adminId,
          action: 'changed',
          entity: 'config',
          entityId: after.id,
          before: auditSnapshot(before),
          after: auditSnapshot(after),
        });
        return after;
      });
      this.forget();
      return await this.read();
    } finally {
      this.forget();
    }
  }

  /**
   * A mess's configuration row, in `tx` (the mess current there), and its `setup` audit row; `also` adds to what
   * the audit row says was set up.
   */
  async insertConfig(
    tx: DbOrTx,
    adminId: string,
    body: MessFieldsDto,
    also: Record<string, unknown> = {},
  ): Promise<MessConfigRow> {
    const created = await this.repository.insert({ ...values(body), createdBy: adminId }, tx);
    await this.audit.record(tx, {
      actorId: adminId,
      action: 'setup',
      entity: 'config',
      entityId: created.id,
      after: { ...auditSnapshot(created), ...also },
    });
    return created;
  }

  /** The 2.2 fields of the mess row that setup and a replacement may change; left out: unchanged. */
  private async saveMessFields(messId: string, body: MessFieldsDto, tx: DbOrTx): Promise<void> {
    const change: Partial<Pick<MessRow, 'slug' | 'capacity' | 'upi'>> = {};
    if (body.slug !== undefined) change.slug = body.slug;
    if (body.capacity !== undefined) change.capacity = body.capacity;
    if (body.upi !== undefined) change.upi = body.upi;
    if (Object.keys(change).length) await this.directory.update(tx, messId, change);
  }

  /** Drops the cached rows (and the mess directory) here and on the other replicas: after a mess changed. */
  forget(): void {
    this.directory.changed();
    this.drop();
    this.replicas.publish(CACHE_TOPIC, 'all');
  }

  private drop(): void {
    this.cached.clear();
    this.generation += 1;
  }

  private async row(): Promise<MessConfigRow | undefined> {
    const now = Date.now();
    const mess = currentMessId();
    const cached = this.cached.get(mess);
    if (cached && now - cached.at < CACHE_MS) return cached.row;
    const generation = this.generation;
    const row = await this.repository.find();
    if (generation === this.generation) this.cached.set(mess, { row, at: now });
    return row;
  }
}

/** What GET returns that a client may send back: ignored. */
const READ_ONLY = new Set(['_id', 'configured', 'createdBy', 'createdAt', 'updatedAt', 'timezone', 'today']);
/** What a partial update may remove by sending null. */
const REMOVABLE = new Set(['monthlyBudget', 'markingWindow', 'capacity', 'upi', 'dailyRate']);

export const messFields = (mess: MessRow) => ({
  slug: mess.slug,
  capacity: mess.capacity,
  upi: mess.upi ?? null,
});
