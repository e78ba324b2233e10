import { Injectable } from '@nestjs/common';
import { type CurrentMember } from '../../common/auth/auth.decorators';
import { badRequest } from '../../common/errors/api-error';
import { Clock } from '../../common/time/clock';
import { MessConfigService } from '../mess-config';
import { UsersService } from '../users';
import { AttendanceEvents } from './attendance-events';
import { AttendanceRepository, SlotMark, WrittenMark } from './attendance.repository';
import { AttendanceRow } from './attendance.schema';
import { BulkAttendanceDto } from './dto/attendance.requests';
import { bulkEntryErrors, inLockOrder, markSource } from './marking-rules';
import { SlotWriter } from './slot-writer';

export interface BulkOutcome {
  /** The stored mark of every entry of the request, in the request's order. */
  rows: AttendanceRow[];
  created: number;
  updated: number;
  unchanged: number;
}

/** A manager's or an admin's marks of one meal slot for many members at once. */
@Injectable()
export class BulkMarkingService {
  constructor(
    private readonly repository: AttendanceRepository,
    private readonly slots: SlotWriter,
    private readonly messConfig: MessConfigService,
    private readonly users: UsersService,
    private readonly events: AttendanceEvents,
    private readonly clock: Clock,
  ) {}

  /**
   * Marks one meal slot for many members in one transaction, all or nothing: an unknown or unapproved member or
   * a repeated userId fails the whole request with one `details` entry per bad row.
   */
  async markMany(caller: CurrentMember, body: BulkAttendanceDto): Promise<BulkOutcome> {
    const meal = await this.messConfig.assertMealType(body.mealType);
    const markedAt = this.clock.now();
    const userIds = [...new Set(body.marks.map((mark) => mark.userId))];
    // Read before the transaction: the users module answers on its own connection, and the embedded engine queues
    // every other statement behind an open transaction. A member removed meanwhile still fails the foreign key.
    const standings = await this.users.standingsOf(userIds);
    const { errors, firstIndex } = bulkEntryErrors(body.marks, standings);
    if (errors.length) throw badRequest('Validation failed', errors);
    const marks = inLockOrder(
      body.marks.map((mark): SlotMark => ({
        userId: mark.userId,
        date: body.date,
        mealType: body.mealType,
        status: mark.status,
        source: markSource(caller.id, mark.userId),
        markedBy: caller.id,
        markedAt,
      })),
    );
    const slotWrite = this.repository.transaction(async (tx) => ({
      written: await this.slots.write(
        marks,
        meal,
        'mess',
        tx,
        (userId) => `marks.${firstIndex.get(userId)}.userId`,
      ),
      stored: await this.repository.findSlots(body.date, body.mealType, userIds, tx),
    }));
    // A repeat into a closed month succeeds and changes nothing, as a single mark does; any change there stays 409.
    const { written, stored } = await slotWrite.catch(async (error: unknown) => ({
      written: [] as WrittenMark[],
      stored: await this.slots.storedUnlessClosedMonthChange(error, body.date, body.mealType, body.marks),
    }));
    this.events.markedInBulk(written, caller.id, { date: body.date, mealType: body.mealType, markedAt });
    const byUser = new Map(stored.map((row) => [row.userId, row]));
    const created = written.filter((row) => row.created).length;
    return {
      rows: body.marks.map((mark) => byUser.get(mark.userId)!),
      created,
      updated: written.length - created,
      unchanged: body.marks.length - written.length,
    };
  }
}
