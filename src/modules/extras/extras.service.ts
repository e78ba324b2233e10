import { can } from '../../common/auth/permissions';
import { Injectable } from '@nestjs/common';
import { type CurrentMember } from '../../common/auth/auth.decorators';
import { badRequest, notFound } from '../../common/errors/api-error';
import { type ExtraEvent } from '../../common/events/event-map';
import { DomainEventBus } from '../../common/events/domain-event-bus';
import { Clock } from '../../common/time/clock';
import { localParts, monthBounds, monthOf } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import { AuditTrail } from '../audit-trail';
import { MessConfigService } from '../mess-config';
import { UsersService } from '../users';
import { ListExtrasQuery, RecordExtraDto } from './dto/extra.requests';
import { EXTRA_NOT_FOUND } from './extras.errors';
import { ExtrasRepository } from './extras.repository';
import type { ExtraRow } from './extras.schema';

/** An extra with the names of the member charged and of its recorder. */
export interface ExtraWithNames {
  extra: ExtraRow;
  names: ReadonlyMap<string, string>;
}

export interface ExtraListPage {
  rows: ExtraRow[];
  names: ReadonlyMap<string, string>;
  total: number;
  totalPaise: number;
}

/**
 * Extras: priced items of the mess's catalogue recorded for a member, charged with the month's share. Owner of the
 * `extras` table. A closed month refuses them in the database (the trigger of expenses and attendance, MS409 → 409),
 * and the close pauses their writes while it reads them, so a close charges exactly the extras it froze.
 */
@Injectable()
export class ExtrasService {
  constructor(
    private readonly repository: ExtrasRepository,
    private readonly messConfig: MessConfigService,
    private readonly users: UsersService,
    private readonly audit: AuditTrail,
    private readonly events: DomainEventBus,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  /** Input first (400), then the member (404 unknown, 400 not approved or not dining); 409 for a closed month. */
  async record(caller: CurrentMember, body: RecordExtraDto): Promise<ExtraWithNames> {
    const item = await this.messConfig.extraItem(body.item);
    if (body.mealType !== undefined) await this.messConfig.assertMealType(body.mealType);
    if (body.date > localParts(this.clock.now(), this.config.messTimezone).date) {
      throw badRequest('Validation failed', [{ field: 'date', message: 'date must not be in the future' }]);
    }
    const standing = (await this.users.standingsOf([body.userId])).get(body.userId);
    if (!standing) throw notFound('User not found');
    if (standing.status !== 'approved') {
      throw badRequest('Validation failed', [
        { field: 'userId', message: `the member is ${standing.status}, not approved` },
      ]);
    }
    if (!standing.dines) {
      throw badRequest('Validation failed', [
        { field: 'userId', message: 'the member does not dine at the mess, so is not billed' },
      ]);
    }
    const extra = await this.repository.transaction(async (tx) => {
      const row = await this.repository.insert(
        {
          userId: body.userId,
          date: body.date,
          mealType: body.mealType ?? null,
          item: item.name,
          unitPricePaise: item.pricePaise,
          quantity: body.quantity,
          amountPaise: item.pricePaise * body.quantity,
          recordedBy: caller.id,
        },
        tx,
      );
      await this.audit.record(tx, {
        actorId: caller.id,
        action: 'created',
        entity: 'extra',
        entityId: row.id,
        after: auditSnapshot(row),
      });
      return row;
    });
    this.events.publish('extra.recorded', extraEvent(extra, caller.id));
    return { extra, names: await this.namesOf([extra]) };
  }

  /** Students see only their own extras, whatever `userId` they pass; everyone else sees any member's. */
  async list(caller: CurrentMember, query: ListExtrasQuery): Promise<ExtraListPage> {
    let from: string | undefined;
    let to: string | undefined;
    if (query.month !== undefined) ({ first: from, last: to } = monthBounds(query.month));
    if (query.date !== undefined) {
      // Both filters: the day, if it lies in the month (else nothing matches).
      from = from === undefined || query.date > from ? query.date : from;
      to = to === undefined || query.date < to ? query.date : to;
    }
    const page = await this.repository.list({
      userId: can(caller, 'extras.read-all') ? query.userId : caller.id,
      from,
      to,
      limit: query.limit,
      offset: (query.page - 1) * query.limit,
    });
    return { ...page, names: await this.namesOf(page.rows) };
  }

  async remove(caller: CurrentMember, id: string): Promise<void> {
    if (!(await this.repository.findById(id))) throw notFound(EXTRA_NOT_FOUND);
    const deleted = await this.repository.transaction(async (tx) => {
      const row = await this.repository.delete(id, tx);
      if (row) {
        await this.audit.record(tx, {
          actorId: caller.id,
          action: 'deleted',
          entity: 'extra',
          entityId: id,
          before: auditSnapshot(row),
        });
      }
      return row;
    });
    if (!deleted) throw notFound(EXTRA_NOT_FOUND);
    this.events.publish('extra.deleted', extraEvent(deleted, caller.id));
  }

  private namesOf(rows: ExtraRow[]): Promise<Map<string, string>> {
    return this.users.namesOf([...new Set(rows.flatMap((r) => [r.userId, r.recordedBy]))]);
  }
}

const extraEvent = (row: ExtraRow, actorId: string): ExtraEvent => ({
  extraId: row.id,
  userId: row.userId,
  date: row.date,
  month: monthOf(row.date),
  item: row.item,
  amountPaise: row.amountPaise,
  actorId,
});

/** An extra as the audit trail keeps it: money in paise. */
const auditSnapshot = (row: ExtraRow) => ({
  userId: row.userId,
  date: row.date,
  mealType: row.mealType,
  item: row.item,
  unitPricePaise: row.unitPricePaise,
  quantity: row.quantity,
  amountPaise: row.amountPaise,
  recordedBy: row.recordedBy,
});
