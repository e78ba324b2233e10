import { Injectable } from '@nestjs/common';
import { CacheInvalidation } from '../../common/cache/cache-invalidation';
import { badRequest, conflict, FieldError, notFound } from '../../common/errors/api-error';
import { MessConfigDto, SetupMessDto } from './dto/mess-config.dto';
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
import { normalizeIndianPhone } from '../../common/phone/phone';
import { AuditTrail } from '../audit-trail';
import { decimalTextToPaise, toPaise, toRupees } from '../../common/money/money';

/** The leave rules of a mess that has not set its own (extension 2.1). */
export const DEFAULT_LEAVE_POLICY: LeavePolicy = {
  minDays: 1,
  applyBeforeHours: 12,
  maxDaysPerMonth: 0,
  requiresApproval: true,
};

/** What applies until an admin runs the setup. */
export const DEFAULT_MESS_CONFIG = {
  messName: 'Hostel Mess',
  description: '',
  email: '',
  phone: '',
  expenseCategories: ['Groceries', 'Vegetables', 'Dairy', 'Gas', 'Staff', 'Maintenance', 'Other'],
  mealTimes: [
    { name: 'Breakfast', startTime: '07:30', endTime: '09:30' },
    { name: 'Lunch', startTime: '12:30', endTime: '14:30' },
    { name: 'Dinner', startTime: '19:30', endTime: '21:30' },
  ] as MealTime[],
  monthlyBudget: null as number | null,
  chargeMethod: 'proportional' as ChargeMethod,
  leavePolicy: DEFAULT_LEAVE_POLICY,
  extraItems: [] as ExtraItem[],
};

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

@Injectable()
export class MessConfigService {
  private cached?: { row: MessConfigRow | undefined; at: number };
  /** Bumped by every invalidation: a read that began before one is not kept. */
  private generation = 0;

  constructor(
    private readonly repository: MessConfigRepository,
    private readonly audit: AuditTrail,
    private readonly replicas: CacheInvalidation,
  ) {
    replicas.subscribe(CACHE_TOPIC, () => this.drop());
  }

  async read(): Promise<MessConfigDto> {
    const row = await this.row();
    return row
      ? toDto(row)
      : {
          ...DEFAULT_MESS_CONFIG,
          extraItems: DEFAULT_MESS_CONFIG.extraItems.map(toItemDto),
          configured: false,
        };
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
    const { expenseCategories } = await this.settings();
    if (!expenseCategories.includes(category)) {
      throw badRequest('Validation failed', [
        { field, message: `${field} must be one of ${expenseCategories.join(', ')}` },
      ]);
    }
  }

  async setup(adminId: string, body: SetupMessDto): Promise<MessConfigDto> {
    validateSemantics(body);
    if (await this.repository.find()) throw conflict(MESS_ALREADY_SET_UP);
    try {
      const row = await this.repository.transaction(async (tx) => {
        const created = await this.repository.insert({ ...values(body), createdBy: adminId }, tx);
        await this.audit.record(tx, {
          actorId: adminId,
          action: 'setup',
          entity: 'config',
          entityId: created.id,
          after: auditSnapshot(created),
        });
        return created;
      });
      return toDto(row);
    } finally {
      this.forget();
    }
  }

  async replace(adminId: string, body: SetupMessDto): Promise<MessConfigDto> {
    validateSemantics(body);
    try {
      const row = await this.repository.transaction(async (tx) => {
        const before = await this.repository.find(tx, { lock: true });
        if (!before) throw notFound(MESS_NOT_SET_UP);
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
      return toDto(row);
    } finally {
      this.forget();
    }
  }

  /** Drops the cached row here and on the other replicas. */
  private forget(): void {
    this.drop();
    this.replicas.publish(CACHE_TOPIC, 'all');
  }

  private drop(): void {
    this.cached = undefined;
    this.generation += 1;
  }

  private async row(): Promise<MessConfigRow | undefined> {
    const now = Date.now();
    if (this.cached && now - this.cached.at < CACHE_MS) return this.cached.row;
    const generation = this.generation;
    const row = await this.repository.find();
    if (generation === this.generation) this.cached = { row, at: now };
    return row;
  }
}

const values = (body: SetupMessDto) => ({
  messName: body.messName,
  description: body.description ?? '',
  email: body.email,
  phone: body.phone,
  expenseCategories: body.expenseCategories,
  mealTimes: body.mealTimes.map(({ name, startTime, endTime }) => ({ name, startTime, endTime })),
  monthlyBudget: body.monthlyBudget === undefined ? null : body.monthlyBudget.toFixed(2),
  // PUT replaces the whole configuration: left out, it returns to its default.
  chargeMethod: body.chargeMethod ?? DEFAULT_MESS_CONFIG.chargeMethod,
  // PUT replaces the whole configuration: a policy left out returns to the defaults, a window left out is removed.
  leavePolicy: body.leavePolicy
    ? {
        minDays: body.leavePolicy.minDays,
        applyBeforeHours: body.leavePolicy.applyBeforeHours,
        maxDaysPerMonth: body.leavePolicy.maxDaysPerMonth,
        requiresApproval: body.leavePolicy.requiresApproval,
      }
    : null,
  markingWindow: body.markingWindow
    ? {
        daysAhead: body.markingWindow.daysAhead,
        closesMinutesAfterEnd: body.markingWindow.closesMinutesAfterEnd,
      }
    : null,
  // The DTO has refused anything that is not whole paise.
  extraItems: (body.extraItems ?? []).map((i) => ({ name: i.name, pricePaise: toPaise(i.price)! })),
});

/** Rules across fields that the DTO cannot say: start before end, no duplicate names or categories. */
export function validateSemantics(
  body: Pick<SetupMessDto, 'mealTimes' | 'expenseCategories' | 'extraItems'>,
): void {
  const details: FieldError[] = [];
  const names = new Set<string>();
  body.mealTimes.forEach((meal, i) => {
    if (meal.startTime >= meal.endTime) {
      details.push({ field: `mealTimes.${i}.endTime`, message: 'endTime must be after startTime' });
    }
    const key = meal.name.toLowerCase();
    if (names.has(key))
      details.push({ field: `mealTimes.${i}.name`, message: `meal name "${meal.name}" is repeated` });
    names.add(key);
  });
  const categories = new Set<string>();
  body.expenseCategories.forEach((category, i) => {
    const key = category.toLowerCase();
    if (categories.has(key)) {
      details.push({ field: `expenseCategories.${i}`, message: `category "${category}" is repeated` });
    }
    categories.add(key);
  });
  const items = new Set<string>();
  (body.extraItems ?? []).forEach((item, i) => {
    const key = item.name.toLowerCase();
    if (items.has(key)) {
      details.push({ field: `extraItems.${i}.name`, message: `item "${item.name}" is repeated` });
    }
    items.add(key);
  });
  if (details.length) throw badRequest('Validation failed', details);
}

const toDto = (row: MessConfigRow): MessConfigDto => ({
  _id: row.id,
  messName: row.messName,
  description: row.description,
  email: row.email,
  // Rows saved before the contact phone was validated may hold another spelling of the same number.
  phone: normalizeIndianPhone(row.phone) ?? row.phone,
  expenseCategories: row.expenseCategories,
  mealTimes: row.mealTimes,
  monthlyBudget: row.monthlyBudget === null ? null : Number(row.monthlyBudget),
  chargeMethod: row.chargeMethod,
  leavePolicy: row.leavePolicy ?? DEFAULT_LEAVE_POLICY,
  ...(row.markingWindow ? { markingWindow: row.markingWindow } : {}),
  extraItems: row.extraItems.map(toItemDto),
  configured: true,
  createdBy: row.createdBy,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/** The configuration as the audit trail keeps it; the budget in paise like all audited money. */
const auditSnapshot = (row: MessConfigRow) => ({
  messName: row.messName,
  description: row.description,
  email: row.email,
  phone: row.phone,
  expenseCategories: row.expenseCategories,
  mealTimes: row.mealTimes,
  monthlyBudgetPaise: row.monthlyBudget === null ? null : (decimalTextToPaise(row.monthlyBudget) ?? null),
  chargeMethod: row.chargeMethod,
  extraItems: row.extraItems,
});

const toItemDto = (item: ExtraItem) => ({ name: item.name, price: toRupees(item.pricePaise) });
