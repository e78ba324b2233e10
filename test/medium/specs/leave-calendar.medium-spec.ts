import { inTransaction } from '../../../src/database/transactions';
import {
  LeaveCalendar,
  LeaveCalendarModule,
  LeaveRecords,
  type NewLeaveRow,
} from '../../../src/modules/leave-calendar';
import { type MediumContext, type MediumMember, newMedium } from '../medium.factory';

/**
 * Who is on leave, in two messes: the calendar and the records read and change the leave of the mess they run in
 * only, whatever instant or member they are asked about. The leave's rules (asking, deciding): leave.medium-spec.ts.
 */
describe('Leave calendar (medium): two messes', () => {
  let ctx: MediumContext;
  let inB: MediumContext;
  let aStudent: MediumMember;
  let bStudent: MediumMember;
  let aLeaveId: string;
  let bLeaveId: string;

  // Lunch on 2 February 2030 (UTC): inside both leaves below.
  const lunch = new Date('2030-02-02T07:30:00Z');
  const leave = (member: MediumMember, status: NewLeaveRow['status']): NewLeaveRow => ({
    messId: member.messId,
    userId: member.id,
    startDate: '2030-02-01',
    endDate: '2030-02-03',
    startMealType: 'Breakfast',
    endMealType: 'Dinner',
    startsAt: new Date('2030-02-01T02:00:00Z'),
    endsAt: new Date('2030-02-03T17:00:00Z'),
    days: 3,
    reason: 'home',
    status,
    requestedBy: member.id,
  });

  beforeAll(async () => {
    ctx = await newMedium({ imports: [LeaveCalendarModule], now: new Date('2030-01-15T04:00:00Z') });
    inB = ctx.as(ctx.messes.b);
    aStudent = await ctx.newMember('student');
    bStudent = await inB.newMember('student');
    aLeaveId = (await ctx.get(LeaveRecords).insert(leave(aStudent, 'approved'))).id;
    bLeaveId = (await inB.get(LeaveRecords).insert(leave(bStudent, 'approved'))).id;
  });
  afterAll(() => ctx?.close());

  it("names each mess's own members on leave at a meal, and nobody outside their leave", async () => {
    expect(await ctx.get(LeaveCalendar).membersOnLeave(lunch)).toEqual([aStudent.id]);
    expect(await inB.get(LeaveCalendar).membersOnLeave(lunch)).toEqual([bStudent.id]);
    const after = new Date('2030-02-04T07:30:00Z');
    expect(await inB.get(LeaveCalendar).membersOnLeaveAt([lunch, after])).toEqual([[bStudent.id], []]);
    const overlapping = await ctx
      .get(LeaveCalendar)
      .approvedOverlapping(new Date('2030-01-31T00:00:00Z'), new Date('2030-02-10T00:00:00Z'));
    expect(overlapping.map((l) => l.userId)).toEqual([aStudent.id]);
  });

  it("A's records neither read nor page B's leave", async () => {
    expect(await ctx.get(LeaveRecords).findById(bLeaveId)).toBeUndefined();
    expect(await inB.get(LeaveRecords).findById(bLeaveId)).toMatchObject({
      userId: bStudent.id,
      status: 'approved',
    });
    expect(await ctx.get(LeaveRecords).memberPage(bStudent.id, undefined, 10)).toEqual([]);
    expect((await inB.get(LeaveRecords).memberPage(bStudent.id, undefined, 10)).map((l) => l.id)).toEqual([
      bLeaveId,
    ]);
  });

  it("cancelling B's member's leave ahead (a move) in A cancels nothing; in B, theirs", async () => {
    const cancelIn = (at: MediumContext) =>
      at.inMess(at.messId, () =>
        inTransaction(at.db, (tx) =>
          at.module.get(LeaveRecords).cancelActiveAfter(tx, [bStudent.id], new Date('2030-01-20T00:00:00Z')),
        ),
      );
    expect(await cancelIn(ctx)).toEqual([]);
    expect((await inB.get(LeaveRecords).findById(bLeaveId))?.status).toBe('approved');
    const cancelled = await cancelIn(inB);
    expect(cancelled.map((c) => [c.after.id, c.before.status, c.after.status])).toEqual([
      [bLeaveId, 'approved', 'cancelled'],
    ]);
    expect(await inB.get(LeaveCalendar).membersOnLeave(lunch)).toEqual([]);
    expect(await ctx.get(LeaveCalendar).membersOnLeave(lunch)).toEqual([aStudent.id]);
    expect((await ctx.get(LeaveRecords).findById(aLeaveId))?.status).toBe('approved');
  });
});
