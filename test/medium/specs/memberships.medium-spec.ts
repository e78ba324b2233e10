import { LeaveModule } from '../../../src/modules/leave';
import { CreateLeaveDto } from '../../../src/modules/leave/dto/leave.requests';
import { LeaveService } from '../../../src/modules/leave/leave.service';
import { LeaveRecords } from '../../../src/modules/leave-calendar';
import { MembershipsModule, MembershipsService } from '../../../src/modules/memberships';
import { MessDirectory, PastMesses } from '../../../src/modules/messes';
import { UsersService } from '../../../src/modules/users';
import { type MediumContext, type MediumMember, MESS_B_SETUP, newMedium } from '../medium.factory';

/**
 * Moves between the two messes: a member moved from A to B is on B's roster and off A's, their leave in A not yet
 * over is cancelled in A, and the move is in the trail (so A still knows they belonged); a full mess or an unknown
 * one refuses the whole batch. What /messes/:mess/members answers: test/e2e/messes-members.e2e-spec.ts.
 */
describe('Memberships (medium): moves between two messes', () => {
  let ctx: MediumContext;
  let inB: MediumContext;
  let admin: MediumMember;
  let mover: MediumMember;
  let stayer: MediumMember;
  let moverLeaveId: string;

  beforeAll(async () => {
    ctx = await newMedium({
      imports: [MembershipsModule, LeaveModule],
      now: new Date('2030-01-15T04:00:00Z'),
    });
    inB = ctx.as(ctx.messes.b);
    admin = await ctx.newMember('admin');
    mover = await ctx.newMember('student', { fullName: 'Mira Mover' });
    stayer = await ctx.newMember('student', { fullName: 'Stella Stayer' });
    moverLeaveId = (
      await ctx
        .get(LeaveService)
        .create(
          mover.caller,
          await ctx.dto(CreateLeaveDto, { startDate: '2030-02-01', endDate: '2030-02-03', reason: 'home' }),
        )
    ).id;
  });
  afterAll(() => ctx?.close());

  const rosterIds = async (at: MediumContext) =>
    (await at.get(UsersService).roster({ limit: 50, offset: 0 })).rows.map((u) => u.id).sort();

  it("moves a member from A to B by slug: on B's roster, off A's, their leave in A cancelled", async () => {
    const moved = await ctx.get(MembershipsService).move(admin.caller, [mover.id], 'mess-b');
    expect(moved.moved).toBe(1);
    expect(moved.members.map((m) => [m.id, m.messId])).toEqual([[mover.id, ctx.messes.b.id]]);
    expect(await rosterIds(inB)).toEqual([ctx.messes.b.admin!.id, mover.id].sort());
    expect(await rosterIds(ctx)).toEqual([admin.id, stayer.id].sort());
    expect((await ctx.get(LeaveRecords).findById(moverLeaveId))?.status).toBe('cancelled');
  });

  it('keeps the move in the trail: A knows the member belonged, B is where they are now', async () => {
    expect(await ctx.get(PastMesses).belongedTo(mover.id, ctx.messes.a.id)).toBe(true);
    expect(await ctx.get(PastMesses).belongedTo(stayer.id, ctx.messes.a.id)).toBe(false);
    const periods = await ctx
      .get(PastMesses)
      .periods(mover.id, ctx.messes.b.id, new Date('2030-01-01T00:00:00Z'));
    expect(periods.map((p) => [p.messId, p.to === null])).toEqual([
      [ctx.messes.a.id, false],
      [ctx.messes.b.id, true],
    ]);
  });

  it('moving a member to the mess they are in changes nothing', async () => {
    const again = await ctx.get(MembershipsService).move(admin.caller, [mover.id], ctx.messes.b.id);
    expect(again.moved).toBe(0);
    expect((await ctx.get(UsersService).findByIds([mover.id]))[0].messId).toBe(ctx.messes.b.id);
  });

  it('refuses a move into a full mess (409) or an unknown one (404), moving nobody', async () => {
    await ctx.get(MessDirectory).update(ctx.db, ctx.messes.b.id, { capacity: 2 });
    ctx.get(MessDirectory).changed();
    const full = await ctx.refusal(ctx.get(MembershipsService).move(admin.caller, [stayer.id], 'mess-b'));
    expect(full.status).toBe(409);
    expect(full.body).toMatchObject({ error: `Mess ${MESS_B_SETUP.messName} is full` });
    const unknown = await ctx.refusal(
      ctx.get(MembershipsService).move(admin.caller, [stayer.id], 'no-such-mess'),
    );
    expect(unknown.status).toBe(404);
    expect(await rosterIds(ctx)).toEqual([admin.id, stayer.id].sort());
    expect(await rosterIds(inB)).toEqual([ctx.messes.b.admin!.id, mover.id].sort());
  });
});
