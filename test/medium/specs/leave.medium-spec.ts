import { LeaveCalendar, LeaveRecords } from '../../../src/modules/leave-calendar';
import { LeaveDecisionsService, LeaveModule } from '../../../src/modules/leave';
import { CreateLeaveDto, ListLeavesQuery } from '../../../src/modules/leave/dto/leave.requests';
import { LeaveService } from '../../../src/modules/leave/leave.service';
import { type MediumContext, type MediumMember, newMedium } from '../medium.factory';

/**
 * Leave in two messes: A's leave service and records never read, decide or cancel B's leave, and B's leave is made of
 * B's configuration (its meal times). What /leave answers: test/e2e/leave.e2e-spec.ts.
 */
describe('Leave (medium): two messes', () => {
  let ctx: MediumContext;
  let inB: MediumContext;
  let aManager: MediumMember;
  let bStudent: MediumMember;
  let bLeaveId: string;

  // Mid-January 2030: the leave of 1–3 February is well ahead of every policy's notice.
  beforeAll(async () => {
    ctx = await newMedium({ imports: [LeaveModule], now: new Date('2030-01-15T04:00:00Z') });
    inB = ctx.as(ctx.messes.b);
    // A keeps the defaults (Breakfast, Lunch, Dinner); B's last meal is Supper.
    aManager = await ctx.newMember('manager', { fullName: 'Anil Manager' });
    bStudent = await inB.newMember('student', { fullName: 'Bela Student' });
    const asked = await inB
      .get(LeaveService)
      .create(
        bStudent.caller,
        await inB.dto(CreateLeaveDto, { startDate: '2030-02-01', endDate: '2030-02-03', reason: 'B home' }),
      );
    bLeaveId = asked.id;
  });
  afterAll(() => ctx?.close());

  const readIn = (at: MediumContext, id: string) => at.get(LeaveRecords).findById(id);

  it("B's leave is B's: made of B's meal times, listed in B, never in A", async () => {
    expect(await readIn(inB, bLeaveId)).toMatchObject({
      userId: bStudent.id,
      status: 'pending',
      startMealType: 'Breakfast',
      endMealType: 'Supper',
    });
    const bList = await inB
      .get(LeaveService)
      .list(ctx.messes.b.admin!.caller, await inB.dto(ListLeavesQuery, { month: '2030-02' }));
    expect(bList.rows.map((r) => r.id)).toEqual([bLeaveId]);

    expect(await readIn(ctx, bLeaveId)).toBeUndefined();
    const aList = await ctx.get(LeaveService).list(aManager.caller, await ctx.dto(ListLeavesQuery, {}));
    expect(aList).toEqual({ rows: [], total: 0 });
    // a manager of A naming B's member: nobody of A's
    const named = await ctx
      .get(LeaveService)
      .list(aManager.caller, await ctx.dto(ListLeavesQuery, { userId: bStudent.id }));
    expect(named.total).toBe(0);
  });

  it("A's manager neither approves, rejects nor cancels B's leave (404), which stays pending in B", async () => {
    const decisions = ctx.get(LeaveDecisionsService);
    const recording = ctx.recordEvents(['leave.decided']);
    try {
      expect((await ctx.refusal(decisions.approve(aManager.caller, bLeaveId))).status).toBe(404);
      expect((await ctx.refusal(decisions.reject(aManager.caller, bLeaveId, 'from A'))).status).toBe(404);
      expect((await ctx.refusal(decisions.cancel(aManager.caller, bLeaveId))).status).toBe(404);
      expect(recording.received).toEqual([]);
    } finally {
      recording.stop();
    }
    expect(await readIn(inB, bLeaveId)).toMatchObject({
      status: 'pending',
      decidedBy: null,
      decisionNote: '',
    });
  });

  it("A's manager cannot record leave for B's member (404)", async () => {
    const refused = await ctx.refusal(
      ctx.get(LeaveService).create(
        aManager.caller,
        await ctx.dto(CreateLeaveDto, {
          startDate: '2030-02-10',
          endDate: '2030-02-11',
          userId: bStudent.id,
        }),
      ),
    );
    expect(refused.status).toBe(404);
    const bList = await inB
      .get(LeaveService)
      .list(ctx.messes.b.admin!.caller, await inB.dto(ListLeavesQuery, { userId: bStudent.id }));
    expect(bList.rows.map((r) => r.id)).toEqual([bLeaveId]);
  });

  it("once B approves it, B's calendar has the member on leave and A's has nobody", async () => {
    const approved = await inB.get(LeaveDecisionsService).approve(ctx.messes.b.admin!.caller, bLeaveId);
    expect(approved.status).toBe('approved');
    const lunch = new Date('2030-02-02T07:30:00Z');
    expect(await inB.get(LeaveCalendar).membersOnLeave(lunch)).toEqual([bStudent.id]);
    expect(await ctx.get(LeaveCalendar).membersOnLeave(lunch)).toEqual([]);
  });
});
