import { Logger } from '@nestjs/common';
import type { EventMap } from '../../common/events/event-map';
import { Outages } from '../../common/outages/outages';
import { FIRST_MESS_ID } from '../../common/tenancy/mess-scope';
import { NotificationTriggers } from './notification-triggers';

describe('NotificationTriggers', () => {
  let lines: string[];
  let outages: Outages;

  beforeEach(() => {
    lines = [];
    for (const level of ['log', 'warn', 'error'] as const)
      jest.spyOn(Logger.prototype, level).mockImplementation((...args: unknown[]) => {
        lines.push(`${level} ${args.find((a) => typeof a === 'string')}`);
      });
    outages = new Outages();
  });
  afterEach(() => {
    outages.onModuleDestroy();
    jest.restoreAllMocks();
  });

  it("a listener that loses the database is the outage's one warning; any other failure an error", async () => {
    const refused = Object.assign(new Error('Failed query: select 1\nparams: '), {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    });
    let failure: Error = refused;
    const fails = () => Promise.reject(failure);
    const triggers = new NotificationTriggers(
      { members: fails, notify: fails } as never,
      { findById: fails } as never,
      { settings: fails } as never,
      {} as never,
      {} as never,
      {} as never,
      {} as never,
      { idle: () => Promise.resolve() } as never,
      outages,
    );
    // As the bus delivers it: every event names its mess, and the listener runs in it.
    // (The marks' alerts are heard in process; the durable events' listeners reject, and the relay logs and retries.)
    const mark: EventMap['attendance.marked'] = {
      messId: FIRST_MESS_ID,
      attendanceId: 'a-1',
      userId: 'u-1',
      date: '2025-11-03',
      mealType: 'lunch',
      status: 'present',
      actorId: 'u-2',
      month: '2025-11',
      markedAt: '2025-11-03T08:00:00.000Z',
    };
    triggers.onAttendanceMarked(mark);
    triggers.onAttendanceMarked(mark);
    await triggers.idle();
    expect(lines).toEqual([
      'warn The database is unavailable: ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:5432',
    ]);

    failure = new Error('a template bug');
    triggers.onAttendanceMarked(mark);
    await triggers.idle();
    expect(lines.slice(1)).toEqual(['error Notification trigger failed']);
  });
});
