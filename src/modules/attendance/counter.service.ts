import { Injectable } from '@nestjs/common';
import type * as QrCodes from 'qrcode';
import { type CurrentMember } from '../../common/auth/auth.decorators';
import { badRequest, conflict, notFound } from '../../common/errors/api-error';
import { currentMessId } from '../../common/tenancy/mess-scope';
import { MessDirectory } from '../messes';
import { optionalPackage } from '../../common/runtime/optional-package';
import { Clock } from '../../common/time/clock';
import { localParts, mealSpan } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import { MessConfigService } from '../mess-config';
import { UsersService } from '../users';
import { AttendanceEvents } from './attendance-events';
import { AttendanceRepository, SlotMark } from './attendance.repository';
import { AttendanceRow } from './attendance.schema';
import { INVALID_PASS, PASS_MEAL_OVER } from './attendance.errors';
import { CounterPasses } from './counter-pass';
import { PassQuery } from './dto/attendance.requests';
import { assertMayBePresent } from './marking-rules';
import { SlotWriter } from './slot-writer';

/** A pass is valid from this long before its meal starts. */
export const PASS_LEAD_MINUTES = 30;

/** The counter: members' signed meal passes, and the scans that mark them present. */
@Injectable()
export class CounterService {
  constructor(
    private readonly passes: CounterPasses,
    private readonly slots: SlotWriter,
    private readonly repository: AttendanceRepository,
    private readonly messConfig: MessConfigService,
    private readonly users: UsersService,
    private readonly events: AttendanceEvents,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly messes: MessDirectory,
  ) {}

  /**
   * A signed pass for the caller's meal: valid from PASS_LEAD_MINUTES before the meal's start to its end. A meal
   * that has ended gets none (400); a later one gets a pass that becomes valid in its window.
   */
  async issuePass(
    caller: CurrentMember,
    query: PassQuery,
  ): Promise<{ pass: string; validFrom: Date; expiresAt: Date; qrSvg: string }> {
    const date = query.date ?? localParts(this.clock.now(), this.config.messTimezone).date;
    const meal = await this.messConfig.assertMealType(query.mealType);
    const { start, end } = mealSpan(date, meal, this.config.messTimezone);
    if (this.clock.now() >= end)
      throw badRequest(PASS_MEAL_OVER, [{ field: 'date', message: PASS_MEAL_OVER }]);
    const validFrom = new Date(start.getTime() - PASS_LEAD_MINUTES * 60_000);
    const pass = this.passes.issue({
      userId: caller.id,
      date,
      mealType: meal.name,
      validFrom: Math.floor(validFrom.getTime() / 1000),
      expiresAt: Math.floor(end.getTime() / 1000),
      messId: caller.messId,
    });
    // One byte-mode segment: a pass is base64url, mostly lower case, which no denser QR mode holds, so the encoder's
    // search for the best mix of modes (a third of its time) could at most shorten a long run of digits or capitals
    // into another segment; the text a scanner reads is the same.
    const qrSvg = await qrCodes().toString([{ data: Buffer.from(pass), mode: 'byte' }], {
      type: 'svg',
      errorCorrectionLevel: 'M',
      margin: 2,
    });
    return { pass, validFrom, expiresAt: end, qrSvg };
  }

  /**
   * The counter marks the pass's member present for its meal: `repeat` when the mess or the counter had already
   * recorded them present (a second plate). A member's own present mark is taken over as the kitchen's record.
   */
  async scan(caller: CurrentMember, pass: string): Promise<{ row: AttendanceRow; repeat: boolean }> {
    const checked = this.passes.check(pass, this.clock.now());
    if (checked.status === 'invalid')
      throw badRequest(INVALID_PASS, [{ field: 'pass', message: INVALID_PASS }]);
    if (checked.status === 'early') {
      const from = localParts(checked.validFrom, this.config.messTimezone);
      const message = `This pass is valid from ${from.time} on ${from.date}`;
      throw badRequest(message, [{ field: 'pass', message }]);
    }
    if (checked.status === 'expired') {
      const message = 'This pass has expired: its meal is over';
      throw badRequest(message, [{ field: 'pass', message }]);
    }
    const { claims } = checked;
    if (claims.messId !== currentMessId()) {
      throw conflict(`This pass is for ${(await this.messes.label(claims.messId)).messName}`);
    }
    const standing = (await this.users.standingsOf([claims.userId])).get(claims.userId);
    if (standing?.status !== 'approved') {
      throw badRequest(INVALID_PASS, [{ field: 'pass', message: 'the member is not approved' }]);
    }
    assertMayBePresent(standing, 'present');
    const meal = (await this.messConfig.settings()).mealTimes.find((m) => m.name === claims.mealType);
    const mark: SlotMark = {
      userId: claims.userId,
      date: claims.date,
      mealType: claims.mealType,
      status: 'present',
      source: 'counter',
      markedBy: caller.id,
      markedAt: this.clock.now(),
    };
    const [written] = await this.slots.write([mark], meal, 'mess');
    if (written) {
      this.events.marked([written], caller.id);
      return { row: written, repeat: false };
    }
    const row = await this.repository.findSlot(claims.userId, claims.date, claims.mealType);
    if (!row) throw notFound('Attendance record not found');
    return { row, repeat: true };
  }
}

/** The QR encoder, loaded with the first pass (~60 modules a replica that issues none need not load at start). */
const qrCodes = () => optionalPackage<typeof QrCodes>('qrcode');
